// Automatic chunking on the device: a layout's first run is a plan of chunks that grow, hold and
// shrink, part of them timed; later runs are planned by the stage model fitted to them, and the
// result is the serial one whatever the sizes. A CPU device (PoCL) runs its queues' commands as
// the host submits them, so its timed copies hardly grow with the chunk: there the model may
// keep learning, and the runs must still be right. (The model and the planner alone, without a
// device: test_pipeline_plan.cpp.)
#include "pipeline_support.hpp"

namespace {

namespace tp = test::pipeline;

// Runs c = a + 0.5 b (exact) through `pipeline` and returns the report; checks the result and
// that the chunks tile the arrays.
dualrt::PipelineReport run_triad(dualrt::Pipeline& pipeline, const std::vector<float>& a,
                                 const std::vector<float>& b) {
    const auto triad = tp::kernel("pipeline_test_triad");
    std::vector<float> c(a.size(), test::poison_float());
    std::size_t next = 0;
    const auto report = pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), [&](auto& chunk) {
        CHECK(chunk.offset == next);
        next += chunk.size();
        chunk.queue.launch(triad, {chunk.size()}, {}, tp::u32(chunk.size()), 0.5f,
                           std::get<0>(chunk.inputs), std::get<1>(chunk.inputs),
                           std::get<0>(chunk.outputs));
    });
    CHECK(next == a.size());
    std::vector<float> expected(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) expected[i] = a[i] + 0.5f * b[i];
    CHECK(test::differences(c, expected) == "");
    std::size_t total = 0;
    for (std::size_t size : report.chunk_sizes) total += size;
    CHECK(total == a.size());
    CHECK(report.chunks == report.chunk_sizes.size());
    return report;
}

bool rises_then_falls(const std::vector<std::size_t>& sizes) {
    if (sizes.size() < 3) return false;
    const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
    return sizes.front() < largest && sizes.back() < largest && sizes[0] < sizes[1] &&
           sizes[sizes.size() - 1] < sizes[sizes.size() - 2];
}

}  // namespace

TEST_CASE("pipeline auto: a first run grows and shrinks its chunks, later runs follow the model") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = (std::size_t{12} << 20) / sizeof(float) + 4321;
    const auto a = rnd.floats(n), b = rnd.floats(n);
    for (auto mode : {dualrt::PipelineMode::lanes, dualrt::PipelineMode::two_queues,
                      dualrt::PipelineMode::three_queues}) {
        CAPTURE(dualrt::to_string(mode));
        dualrt::PipelineOptions options;
        options.mode = mode;
        dualrt::Pipeline pipeline(test::device(), options);

        const auto first = run_triad(pipeline, a, b);
        INFO("first run: " << first.summary());
        CHECK(test::contains(first.chunking, "first run of this layout"));
        CHECK(rises_then_falls(first.chunk_sizes));
        CHECK(first.timed_chunks > 0);
        CHECK(first.predicted_ms == 0.0);

        // Whether the timings let the model plan depends on the device's clocks (a CPU device's
        // copies hardly grow with the chunk): later runs plan, learn on, or take the safe plan.
        for (int run = 0; run < 2; ++run) {
            const auto later = run_triad(pipeline, a, b);
            INFO("later run: " << later.summary());
            const bool planned = test::contains(later.chunking, "planned by the stage model");
            CHECK((planned || test::contains(later.chunking, "still learning") ||
                   test::contains(later.chunking, "a safe plan")));
            CHECK(test::contains(later.chunking, "predicted") == planned);
            CHECK((later.predicted_ms > 0.0) == planned);
            CHECK(later.measured_ms > 0.0);
        }
    }
}

TEST_CASE("pipeline auto: each layout of arrays learns on its own") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::Pipeline pipeline(test::device());
    const std::size_t n = (std::size_t{8} << 20) / sizeof(float);
    const auto a = rnd.floats(n), b = rnd.floats(n);
    CHECK(test::contains(run_triad(pipeline, a, b).chunking, "first run of this layout"));
    CHECK(!test::contains(run_triad(pipeline, a, b).chunking, "first run of this layout"));
    // Pinned inputs are another layout: a first run again.
    auto a_pinned = tp::pinned_copy(a);
    std::vector<float> c(n);
    const auto report = pipeline.run(dualrt::inputs(a_pinned, b), dualrt::outputs(c),
                                     [&](auto& chunk) {
                                         chunk.queue.copy(std::get<0>(chunk.outputs),
                                                          std::get<0>(chunk.inputs));
                                     });
    CHECK(test::contains(report.chunking, "first run of this layout"));
    CHECK(test::differences(c, a) == "");
}

TEST_CASE("pipeline auto: small inputs are cut into a few chunks, or one") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::Pipeline pipeline(test::device());
    for (std::size_t n : {std::size_t{1}, std::size_t{5000}, std::size_t{70000},
                          std::size_t{300001}}) {
        CAPTURE(n);
        const auto a = rnd.floats(n), b = rnd.floats(n);
        const auto report = run_triad(pipeline, a, b);
        CHECK(report.chunks >= 1);
        CHECK(report.chunks <= 16);
    }
}
