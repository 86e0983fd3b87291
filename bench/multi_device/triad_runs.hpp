// The multi_device benchmark's work: the triad c = a + s * b over large host arrays, its host
// reference, dualrt's Pipeline runs of the built-in triad kernel on one device or several, and
// the hand-written native stream of the same job on one device, every output checked bit for
// bit against the host.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dualrt::samples {

struct TriadData {
    std::vector<float> a, b;
    float s = 0.0f;
    std::vector<float> expected;  // std::fma(s, b[i], a[i]): the kernel's fma, bit for bit
};

// `elements` random floats per array from `seed`, and the reference (spread over the host's
// threads).
TriadData random_triad(std::size_t elements, unsigned seed);

// "" when `c` equals the reference bit for bit; else where and how the first element differs.
std::string compare_triad(const float* c, const TriadData& data);

// What the median run of a Pipeline measured.
struct TriadRun {
    double host_ms = 0.0;  // wall-clock time of run(): host arrays to host array
    dualrt::PipelineReport report;
    // One line per run, the untimed first included (numbered 0), so the output shows how the
    // chunking settled after the untimed run taught it: the run's number, its time in ms, its
    // chunk count and PipelineReport::chunking.
    std::vector<std::string> each_run;
    // Which runs the median is of, in words: those of the way most runs went, on several
    // devices or one alone (a Pipeline over several devices measures the other way now and then).
    std::string median_of;
};

// Runs the triad on `pipeline` (one device or several: each chunk launches the kernel of its
// own device) `repetitions` times after one untimed run, which teaches automatic chunking and
// the dealing of chunks their measurements. Host memory: the pageable vectors, or pinned copies
// of them (`pinned`, allocated on the pipeline's first device). Every run's output is poisoned
// first and checked; a wrong one throws std::runtime_error. Returns the median run, with a line
// for every run.
TriadRun run_triad(dualrt::Pipeline& pipeline, const TriadData& data, bool pinned,
                   int repetitions);

// The hand-written way to use several devices: the arrays split once in proportion to `weights`
// (e.g. each device's native rate alone), each device running its native stream on its part.
struct NativeSplit {
    std::vector<dualrt::Device> devices;
    std::vector<double> weights;
};

// The devices together, the fastest alone and the native split, each one's median run.
struct TogetherRuns {
    TriadRun alone, together;
    double native_ms = 0.0;   // 0: no split asked for, or unavailable (native_why says why)
    std::string native_why;
};

// The runs of a Pipeline over several devices (`together`) in turns with those of the fastest
// device alone (`alone`) and, where `split` is given, with the native split (blocks of the
// largest chunk of `together`'s untimed first run): every way sees the host in the same state.
// Measured one after the other, the second may meet a host the first left slower (pageable runs
// of a GPU alone inside a Pipeline over the GPU and PoCL's CPU read 10-20% slower than the same
// GPU's own Pipeline measured before them), and one way's medians differ by several percent
// between runs minutes apart (four H100s from pinned memory: native split 19.5-21.3 ms).
TogetherRuns run_together_in_turns(dualrt::Pipeline& alone, dualrt::Pipeline& together,
                                   const TriadData& data, bool pinned, int repetitions,
                                   const NativeSplit* split);

// The native baseline's hand-written stream of the same triad on `device` (two queues, blocks of
// `block_elements`), median host wall time in ms of `repetitions` runs after a warm-up; its last
// output is checked. Returns 0 and sets `why` when the baseline is unavailable for the device.
double native_triad_ms(const dualrt::Device& device, const TriadData& data, bool pinned,
                       std::size_t block_elements, int repetitions, std::string& why);

// The native split of `devices` by `weights` (NativeSplit), blocks of `block_elements`, each
// device's part on a thread of its own, all at once: every run (the warm-up too) starts on all
// devices together, and lasts until the slowest part ends. Before each run (0: the warm-up, then
// 1 to `repetitions`) the parts wait while the calling thread runs `before_run`; if it throws,
// the parts stop and the exception goes on. Returns the median of the timed runs' wall times.
// Every part's output is checked. 0 and `why` when a baseline is unavailable.
double native_split_triad_ms(const std::vector<dualrt::Device>& devices,
                             const std::vector<double>& weights, const TriadData& data,
                             bool pinned, std::size_t block_elements, int repetitions,
                             std::string& why, const std::function<void(int)>& before_run = {});

}  // namespace dualrt::samples
