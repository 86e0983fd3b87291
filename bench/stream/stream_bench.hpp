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
    double first_wall_ms = 0.0;  // measure_run: the untimed first run (Pipeline auto: a fresh
                                 // Pipeline's first), host clock; 0 elsewhere
};

// How measure_run fills a variant's inputs with the reference a and b (elements [0, n)).
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

    // Times a variant. Draws a fresh s, copies the reference a and b into `host`, poisons the
    // device buffers, then runs the stream once untimed and job().repetitions times timed. A run
    // poisons c, records a start event on queue 0 (queue 1 waits for it), calls `enqueue` for
    // every block in order, records an end event on each queue and finishes both; c is
    // spot-checked after every run and checked whole after the last.
    Measurement measure(const HostBlocks& host, const std::function<void(Block&)>& enqueue);

    // Times a stream that brings its own queues and schedule (a Pipeline): like measure(), but
    // `run` streams the whole arrays once and returns its own device time (0: none) and blocks
    // until c is complete. `fill` puts the reference a and b into the variant's arrays; `c` is
    // the whole output array. Draws a fresh s (scale() reads it inside `run`).
    Measurement measure_run(const FillInputs& fill, float* c, const std::function<double()>& run);
    float scale() const { return job_.scale; }
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
