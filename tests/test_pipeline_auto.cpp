// Automatic chunking on the device: equal chunks of about a quarter of the arrays, the same run
// after run, with the result the serial one whatever the sizes; a layout's first run times some
// of its chunks, so that its report has stage times from the start. (The plans alone, without a
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

}  // namespace

TEST_CASE("pipeline auto: equal chunks of about a quarter of the arrays, run after run") {
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
        CHECK(test::contains(first.chunking, "auto: 4 chunks"));
        CHECK(first.chunks == 4);
        CHECK(first.timed_chunks > 0);
        for (int run = 0; run < 2; ++run) {
            const auto later = run_triad(pipeline, a, b);
            INFO("later run: " << later.summary());
            CHECK(later.chunk_sizes == first.chunk_sizes);
            CHECK(later.measured_ms > 0.0);
        }
    }
}

TEST_CASE("pipeline auto: each layout's first run times some of its chunks") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::Pipeline pipeline(test::device());
    const std::size_t n = (std::size_t{8} << 20) / sizeof(float);
    const auto a = rnd.floats(n), b = rnd.floats(n);
    CHECK(run_triad(pipeline, a, b).timed_chunks > 0);
    // Pinned inputs are another layout: its first run is timed too.
    auto a_pinned = tp::pinned_copy(a);
    std::vector<float> c(n);
    const auto report = pipeline.run(dualrt::inputs(a_pinned, b), dualrt::outputs(c),
                                     [&](auto& chunk) {
                                         chunk.queue.copy(std::get<0>(chunk.outputs),
                                                          std::get<0>(chunk.inputs));
                                     });
    CHECK(report.timed_chunks > 0);
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
