// The dualrt side of the stream benchmark: c = a + s * b over three host arrays, streamed through
// two queues in blocks (block k on queue k % 2: upload a_k, upload b_k, triad, download c_k).
// StreamBench owns what every variant shares (the queues, each queue's device buffers of one
// block, the random inputs, the block plan, the timing and the checks); a variant adds only how
// it holds the host memory and how it names it in its copies (variants.hpp).
#pragma once

#include "native_baseline.hpp"
#include "native_stream.hpp"

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dualrt::samples::stream {

using bench::HostMemory;
using bench::StreamJob;
using bench::StreamTiming;

// One queue's device buffers, one block of each array.
struct DeviceSlot {
    Buffer<float> a, b, c;
};

// Block `index` of the stream: elements [offset, offset + count) of each array.
struct Block {
    std::size_t index = 0, offset = 0, count = 0;
    Queue queue;       // the queue of index % 2
    DeviceSlot whole;  // that queue's device buffers: the kernel's arguments (it stops at count)
    DeviceSlot exact;  // the copies' device ends: `whole`, or its first `count` elements for a
                       // short last block (a copy's two ends must have the same size)
};

// Where a variant keeps block k of each host array (a[k] is the first element of block k of a):
// for filling the inputs, poisoning the output and checking it, outside the timing.
struct HostBlocks {
    std::vector<float*> a, b, c;
};

// One measured stream: its medians, and "" or what was wrong with its output.
struct Measurement {
    StreamTiming timing;
    std::string wrong;
    double first_wall_ms = 0.0;  // Pipeline auto: a fresh Pipeline's first run, untimed, host
                                 // clock; 0 elsewhere
};

// A variant set up to run (its host memory filled with the inputs, its Pipeline made): `once`
// streams the arrays one time and returns its timing, checking a sample of c; `check` checks the
// whole of c after the last run ("" or what was wrong, in any run). The closures own what the
// variant allocated, so several prepared variants can run in turns.
struct PreparedStream {
    std::function<StreamTiming()> once;
    std::function<std::string()> check;
    double first_wall_ms = 0.0;  // as in Measurement
};

// How prepare_run fills a variant's inputs with the reference a and b (elements [0, n)).
using FillInputs = std::function<void(const float* a, const float* b, std::size_t n)>;

class StreamBench {
public:
    // `elements` floats per array; a and b get random values in [-1, 1) drawn from `seed`.
    StreamBench(Device device, std::size_t elements, int repetitions, std::uint64_t seed);

    // The block size of the measurements that follow: allocates each queue's device buffers
    // and cuts the arrays into blocks.
    void set_block(std::size_t block_elements);

    const Device& device() const { return device_; }
    // The arrays' sizes, the reference inputs, the block size and s of the latest measurement.
    const StreamJob& job() const { return job_; }
    std::vector<Block>& blocks() { return blocks_; }

    // HostBlocks of three arrays held whole, each `elements` long.
    HostBlocks contiguous(float* a, float* b, float* c) const;
    // HostBlocks of storage held per block: a[k].data() is block k of a.
    template <typename PerBlock>
    HostBlocks per_block(const PerBlock& a, const PerBlock& b, const PerBlock& c) const {
        HostBlocks host;
        for (std::size_t k = 0; k < blocks_.size(); ++k) {
            host.a.push_back(a[k].data());
            host.b.push_back(b[k].data());
            host.c.push_back(c[k].data());
        }
        return host;
    }

    // Enqueues the triad of `block` on its queue (work-groups of bench::detail::triad_local_size,
    // as the native baselines launch it).
    void triad(Block& block);

    // Sets up a variant whose copies `enqueue` names: draws its own s and copies the reference
    // a and b into `host`. Each run then poisons c and the device buffers (NaN, so that a block
    // whose upload went missing cannot pass on what an earlier run left there), records a start
    // event on queue 0 (queue 1 waits for it), calls `enqueue` for every block in order, records
    // an end event on each queue and finishes both.
    PreparedStream prepare(const HostBlocks& host, std::function<void(Block&)> enqueue);

    // Sets up a stream that brings its own queues and schedule (a Pipeline): like prepare(), but
    // `run` streams the whole arrays once, returns its own device time (0: none) and blocks until
    // c is complete. `fill` puts the reference a and b into the variant's arrays; `c` is the
    // whole output array; scale() is the variant's s while `run` runs.
    PreparedStream prepare_run(const FillInputs& fill, float* c, std::function<double()> run);

    // Times prepared variants in turns: one untimed run of each, then job().repetitions rounds
    // of one run each, every round starting one variant further on (so that none always runs
    // after the same other). The medians of each, in the order given.
    std::vector<Measurement> measure_in_turns(const std::vector<PreparedStream>& streams);

    float scale() const { return job_.scale; }  // the running variant's s
    const Kernel& triad_kernel() const { return triad_; }
    // PipelineOptions::depth of the Pipeline variants (0: the library's default; with lanes,
    // also their number of queues).
    void set_pipeline_depth(std::size_t depth) { pipeline_depth_ = depth; }
    std::size_t pipeline_depth() const { return pipeline_depth_; }

    // The native baseline's stream of the same arrays and block size (with a fresh s), its c
    // checked whole here.
    Measurement measure_native(bench::NativeBaseline& native, HostMemory memory);

private:
    float next_scale();
    // NaN in both queues' device buffers, finished before a run's timing starts.
    void poison_device_buffers();

    Device device_;
    Queue queues_[bench::detail::stream_queues];
    DeviceSlot slots_[bench::detail::stream_queues];
    std::vector<float> a_, b_;  // the reference inputs
    std::vector<float> native_c_;  // the native run's output, to check
    StreamJob job_;
    std::vector<Block> blocks_;
    Kernel triad_;
    std::uint64_t random_state_;
    std::size_t pipeline_depth_ = 0;
};

}  // namespace dualrt::samples::stream
