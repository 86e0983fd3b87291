// The stream through dualrt::Pipeline: the same c = a + s * b over pinned HostBuffers, but the
// Pipeline brings its own queues (lanes) and schedule. Three ways: two inputs (inputs(a, b),
// outputs(c)) and one input of interleaved pairs, each in chunks of the block size, and two
// inputs with automatic chunking (which ignores the block size). Beside the hand-written
// schedule on dualrt's queues (pinned-view) and the native one, from one run.
#include "variants.hpp"

#include <cstring>

namespace dualrt::samples::stream {
namespace {

// a[i] and b[i] side by side: the one-input form of the stream.
struct Pair {
    float a, b;
};

// A fresh Pipeline per measurement, made outside the timing and kept over its runs: the warm-up
// run is its first (for auto: the run it learns from), the timed ones reuse it, as a program
// that makes one Pipeline per job does.
Pipeline make_pipeline(const StreamBench& bench, Chunking chunking) {
    PipelineOptions options;
    options.chunking = chunking;
    return Pipeline(bench.device(), options);
}

Measurement two_inputs(StreamBench& bench, Chunking chunking) {
    const std::size_t n = bench.job().elements;
    const Device& device = bench.device();
    HostBuffer<float> a = device.alloc_host<float>(n), b = device.alloc_host<float>(n),
                      c = device.alloc_host<float>(n);
    Pipeline pipeline = make_pipeline(bench, chunking);
    const Kernel& triad = bench.triad_kernel();
    const auto fill = [&](const float* ra, const float* rb, std::size_t count) {
        std::memcpy(a.data(), ra, count * sizeof(float));
        std::memcpy(b.data(), rb, count * sizeof(float));
    };
    return bench.measure_run(fill, c.data(), [&] {
        const float s = bench.scale();
        const PipelineReport report =
            pipeline.run(inputs(a, b), outputs(c), [&](auto& chunk) {
                auto [da, db] = chunk.inputs;
                auto [dc] = chunk.outputs;
                chunk.queue.launch(triad, {chunk.size()}, {bench::detail::triad_local_size},
                                   static_cast<std::uint32_t>(chunk.size()), s, da, db, dc);
            });
        return report.measured_ms;
    });
}

}  // namespace

Measurement pipeline_two_inputs(StreamBench& bench) {
    return two_inputs(bench, Chunking::elements(bench.job().block_elements));
}

Measurement pipeline_auto(StreamBench& bench) {
    return two_inputs(bench, Chunking::automatic());
}

Measurement pipeline_pairs(StreamBench& bench) {
    const std::size_t n = bench.job().elements;
    const Device& device = bench.device();
    HostBuffer<Pair> ab = device.alloc_host<Pair>(n);
    HostBuffer<float> c = device.alloc_host<float>(n);
    Pipeline pipeline = make_pipeline(bench, Chunking::elements(bench.job().block_elements));
    const Kernel triad_pairs = device.kernel("triad_pairs");  // built here, outside the timing
    const auto fill = [&](const float* ra, const float* rb, std::size_t count) {
        Pair* pairs = ab.data();
        for (std::size_t i = 0; i < count; ++i) pairs[i] = Pair{ra[i], rb[i]};
    };
    return bench.measure_run(fill, c.data(), [&] {
        const float s = bench.scale();
        const PipelineReport report = pipeline.run(ab, c, [&](Chunk<Pair, float>& chunk) {
            chunk.queue.launch(triad_pairs, {chunk.size()}, {bench::detail::triad_local_size},
                               static_cast<std::uint32_t>(chunk.size()), s, chunk.input,
                               chunk.output);
        });
        return report.measured_ms;
    });
}

}  // namespace dualrt::samples::stream
