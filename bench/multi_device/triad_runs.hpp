// The multi_device benchmark's work: the triad c = a + s * b over large host arrays, its host
// reference, dualrt's Pipeline runs of the built-in triad kernel on one device or several, and
// the hand-written native stream of the same job on one device, every output checked bit for
// bit against the host.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
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
};

// Runs the triad on `pipeline` (one device or several: each chunk launches the kernel of its
// own device) `repetitions` times after one untimed run, which teaches automatic chunking and
// the dealing of chunks their measurements. Host memory: the pageable vectors, or pinned copies
// of them (`pinned`, allocated on the pipeline's first device). Every run's output is poisoned
// first and checked; a wrong one throws std::runtime_error. Returns the median run, with a line
// for every run.
TriadRun run_triad(dualrt::Pipeline& pipeline, const TriadData& data, bool pinned,
                   int repetitions);

// The same for two Pipelines whose timed runs take turns, so that both see the host in the same
// state. Measured one after the other, the second may meet a host the first left slower:
// pageable runs of a GPU alone inside a Pipeline over the GPU and PoCL's CPU can read 10-20%
// slower than the same GPU's own Pipeline measured before them, where pinned runs do not.
// Returns each one's median run.
std::pair<TriadRun, TriadRun> run_triads_interleaved(dualrt::Pipeline& first,
                                                     dualrt::Pipeline& second,
                                                     const TriadData& data, bool pinned,
                                                     int repetitions);

// The native baseline's hand-written stream of the same triad on `device` (two queues, blocks of
// `block_elements`), median host wall time in ms of `repetitions` runs after a warm-up; its last
// output is checked. Returns 0 and sets `why` when the baseline is unavailable for the device.
double native_triad_ms(const dualrt::Device& device, const TriadData& data, bool pinned,
                       std::size_t block_elements, int repetitions, std::string& why);

// The hand-written counterpart of a Pipeline over several devices: the arrays split once, in
// proportion to `weights` (e.g. each device's native rate alone), each device running the native
// stream on its part (blocks of `block_elements`) on a thread of its own, all at once: every run
// (the warm-up too) starts on all devices together, and lasts until the slowest part ends.
// Returns the median of those runs' wall times. Every part's output is checked. 0 and `why` when
// a baseline is unavailable.
double native_split_triad_ms(const std::vector<dualrt::Device>& devices,
                             const std::vector<double>& weights, const TriadData& data,
                             bool pinned, std::size_t block_elements, int repetitions,
                             std::string& why);

}  // namespace dualrt::samples
