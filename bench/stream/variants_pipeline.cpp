// The stream through dualrt::Pipeline: the same c = a + s * b over pinned HostBuffers, but the
// Pipeline brings its own queues (lanes) and schedule. Four ways: two inputs (inputs(a, b),
// outputs(c)) and one input of interleaved pairs, each in chunks of the block size; two inputs in
// chunks of the block size replaying their recorded runs (PipelineOptions::replay); and two
// inputs with automatic chunking (which ignores the block size). Beside the hand-written schedule
// on dualrt's queues (pinned-view) and the native one, from one run.
#include "variants.hpp"

#include <chrono>
#include <cstring>
#include <memory>
#include <string>

namespace dualrt::samples::stream {
namespace {

// a[i] and b[i] side by side: the one-input form of the stream.
struct Pair {
    float a, b;
};

// A fresh Pipeline per measurement, made outside the timing and kept over its runs, as a
// program that makes one Pipeline per job does.
Pipeline make_pipeline(const StreamBench& bench, Chunking chunking, bool replay = false) {
    PipelineOptions options;
    options.chunking = chunking;
    options.depth = bench.pipeline_depth();
    options.replay = replay;
    return Pipeline(bench.device(), options);
}

PreparedStream two_inputs(StreamBench& bench, Chunking chunking, bool replay = false) {
    const std::size_t n = bench.job().elements;
    const Device& device = bench.device();
    struct State {
        HostBuffer<float> a, b, c;
        Pipeline pipeline;
    };
    auto state = std::make_shared<State>(
        State{device.alloc_host<float>(n), device.alloc_host<float>(n),
              device.alloc_host<float>(n), make_pipeline(bench, chunking, replay)});
    const Kernel& triad = bench.triad_kernel();
    const auto fill = [&](const float* ra, const float* rb, std::size_t count) {
        std::memcpy(state->a.data(), ra, count * sizeof(float));
        std::memcpy(state->b.data(), rb, count * sizeof(float));
    };
    const auto run = [&bench, &triad, state] {
        const float s = bench.scale();
        return state->pipeline.run(inputs(state->a, state->b), outputs(state->c),
                                   [&](auto& chunk) {
                                       auto [da, db] = chunk.inputs;
                                       auto [dc] = chunk.outputs;
                                       chunk.queue.launch(
                                           triad, {chunk.size()},
                                           {bench::detail::triad_local_size},
                                           static_cast<std::uint32_t>(chunk.size()), s, da, db,
                                           dc);
                                   });
    };
    double first_wall_ms = 0.0;
    if (chunking.kind() == Chunking::Kind::automatic) {
        // What a program pays on its first run, untimed apart.
        fill(bench.job().a, bench.job().b, n);
        const auto began = std::chrono::steady_clock::now();
        run();
        first_wall_ms = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - began)
                            .count();
    }
    PreparedStream prepared =
        bench.prepare_run(fill, state->c.data(), [run] { return run().measured_ms; });
    prepared.first_wall_ms = first_wall_ms;
    return prepared;
}

}  // namespace

PreparedStream pipeline_two_inputs(StreamBench& bench) {
    return two_inputs(bench, Chunking::elements(bench.job().block_elements));
}

PreparedStream pipeline_replay(StreamBench& bench) {
    return two_inputs(bench, Chunking::elements(bench.job().block_elements), true);
}

PreparedStream pipeline_auto(StreamBench& bench) {
    return two_inputs(bench, Chunking::automatic());
}

PreparedStream pipeline_pairs(StreamBench& bench) {
    const std::size_t n = bench.job().elements;
    const Device& device = bench.device();
    struct State {
        HostBuffer<Pair> ab;
        HostBuffer<float> c;
        Pipeline pipeline;
        Kernel triad_pairs;
    };
    auto state = std::make_shared<State>(
        State{device.alloc_host<Pair>(n), device.alloc_host<float>(n),
              make_pipeline(bench, Chunking::elements(bench.job().block_elements)),
              device.kernel("triad_pairs")});  // built here, outside the timing
    const auto fill = [&](const float* ra, const float* rb, std::size_t count) {
        Pair* pairs = state->ab.data();
        for (std::size_t i = 0; i < count; ++i) pairs[i] = Pair{ra[i], rb[i]};
    };
    return bench.prepare_run(fill, state->c.data(), [&bench, state] {
        const float s = bench.scale();
        const PipelineReport report =
            state->pipeline.run(state->ab, state->c, [&](Chunk<Pair, float>& chunk) {
                chunk.queue.launch(state->triad_pairs, {chunk.size()},
                                   {bench::detail::triad_local_size},
                                   static_cast<std::uint32_t>(chunk.size()), s, chunk.input,
                                   chunk.output);
            });
        return report.measured_ms;
    });
}

}  // namespace dualrt::samples::stream
