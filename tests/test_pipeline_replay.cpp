// PipelineOptions::replay: the first run over a layout records every chunk's work and later runs
// over it replay the recording, bit for bit what plain runs give; other arrays, or a compute
// function that enqueues other commands, are recorded anew; runs that cannot be replayed run as
// usual and say why; a compute function that enqueues what a recording cannot hold is an error.
#include "support.hpp"

namespace {

constexpr std::uint32_t iterations = 8;

float busy_reference(float v, std::uint32_t rounds = iterations) {
    for (std::uint32_t k = 0; k < rounds; ++k) v = std::fma(v, 0.9999f, 0.0001f);
    return v;
}

// output = busy(input) with `rounds` iterations.
struct Busy {
    dualrt::Kernel kernel = test::device().kernel("busy");
    std::uint32_t rounds = iterations;
    void operator()(dualrt::Chunk<float, float>& chunk) {
        chunk.queue.copy(chunk.output, chunk.input);
        chunk.queue.launch(kernel, {chunk.size()}, {}, chunk.output,
                           static_cast<std::uint32_t>(chunk.size()), rounds);
    }
};

dualrt::PipelineOptions replaying(std::size_t chunks,
                                  dualrt::PipelineMode mode = dualrt::PipelineMode::lanes) {
    dualrt::PipelineOptions options;
    options.replay = true;
    options.mode = mode;
    options.chunking = dualrt::Chunking::count(chunks);
    return options;
}

// Fresh random input in `input`, poison in `output`; "" when the run's output is right.
std::string run_checked(dualrt::Pipeline& pipeline, dualrt::HostBuffer<float>& input,
                        dualrt::HostBuffer<float>& output, Busy& busy, test::Random& rnd,
                        dualrt::PipelineReport* report = nullptr) {
    const auto values = rnd.floats(input.size());
    std::copy(values.begin(), values.end(), input.begin());
    std::fill(output.begin(), output.end(), std::nanf(""));
    const auto r = pipeline.run(input, output, busy);
    if (report != nullptr) *report = r;
    std::vector<float> expected(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        expected[i] = busy_reference(values[i], busy.rounds);
    return test::differences(std::vector<float>(output.begin(), output.end()), expected);
}

}  // namespace

TEST_CASE("pipeline replay: later runs over the same arrays replay the first run's recording, "
          "with the arrays' new contents") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    for (const std::size_t chunks : {std::size_t{1}, std::size_t{3}, std::size_t{10}}) {
        CAPTURE(chunks);
        dualrt::Pipeline pipeline(device, replaying(chunks));
        const std::size_t n = chunks * rnd.size(64, 4000);
        auto input = device.alloc_host<float>(n);
        auto output = device.alloc_host<float>(n);
        Busy busy;
        dualrt::PipelineReport report;
        REQUIRE(run_checked(pipeline, input, output, busy, rnd, &report) == "");
        CHECK(test::contains(report.chunking, "recorded for replay"));
        for (int run = 0; run < 3; ++run) {
            CAPTURE(run);
            REQUIRE(run_checked(pipeline, input, output, busy, rnd, &report) == "");
            INFO(report.summary());
            CHECK(test::contains(report.chunking,
                                 "replayed (run " + std::to_string(run + 2) + " of"));
            CHECK(report.timed_chunks == 0);
            CHECK(report.measured_ms > 0.0);
            CHECK(report.stage_times != dualrt::StageTimes::measured);
        }
    }
}

TEST_CASE("pipeline replay: other arrays, or other commands, are recorded anew, and every "
          "run's results are right") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    dualrt::Pipeline pipeline(device, replaying(4));
    const std::size_t n = 4 * 1000;
    auto a = device.alloc_host<float>(n), b = device.alloc_host<float>(n);
    auto c = device.alloc_host<float>(n), d = device.alloc_host<float>(n);
    Busy busy;
    dualrt::PipelineReport report;
    const auto step = [&](dualrt::HostBuffer<float>& in, dualrt::HostBuffer<float>& out,
                          const char* expected) {
        REQUIRE(run_checked(pipeline, in, out, busy, rnd, &report) == "");
        INFO(report.chunking);
        CHECK(test::contains(report.chunking, expected));
    };
    step(a, b, "recorded for replay");
    step(a, b, "replayed (run 2");
    step(c, d, "recorded for replay");  // other arrays
    step(c, d, "replayed (run 2");
    step(a, b, "recorded for replay");  // and back
    busy.rounds = 3;                    // another scalar argument: the recording would be stale
    step(a, b, "recorded anew");
    step(a, b, "replayed (run 2");
}

TEST_CASE("pipeline replay: pageable arrays and stage queues run as usual and say why") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    const std::size_t n = 4 * 1000;
    {
        dualrt::Pipeline pipeline(device, replaying(4));
        const auto input = rnd.floats(n);
        std::vector<float> output(n);
        Busy busy;
        for (int run = 0; run < 2; ++run) {
            const auto report = pipeline.run(input, output, busy);
            CHECK(test::contains(report.chunking, "not replayed"));
            CHECK(test::contains(report.chunking, "pageable"));
            CHECK(output[n - 1] == busy_reference(input[n - 1]));
        }
    }
    {
        dualrt::Pipeline pipeline(device, replaying(4, dualrt::PipelineMode::three_queues));
        auto input = device.alloc_host<float>(n), output = device.alloc_host<float>(n);
        Busy busy;
        dualrt::PipelineReport report;
        REQUIRE(run_checked(pipeline, input, output, busy, rnd, &report) == "");
        REQUIRE(run_checked(pipeline, input, output, busy, rnd, &report) == "");
        CHECK(test::contains(report.chunking, "not replayed"));
        CHECK(test::contains(report.chunking, "three queues"));
    }
}

TEST_CASE("pipeline replay: a compute function that enqueues what a recording cannot hold is an "
          "error naming it, and the Pipeline stays usable") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    dualrt::Pipeline pipeline(device, replaying(2));
    const std::size_t n = 2 * 1000;
    auto input = device.alloc_host<float>(n), output = device.alloc_host<float>(n);
    std::vector<float> pageable(n / 2);
    bool misbehave = true;
    Busy busy;
    const auto compute = [&](dualrt::Chunk<float, float>& chunk) {
        if (misbehave) chunk.queue.copy(chunk.output, pageable);  // needs the host
        busy(chunk);
    };
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "PipelineOptions::replay",
                       pipeline.run(input, output, compute));
    misbehave = false;
    const auto values = rnd.floats(n);
    std::copy(values.begin(), values.end(), input.begin());
    pipeline.run(input, output, compute);
    CHECK(output[0] == busy_reference(values[0]));
    CHECK(output[n - 1] == busy_reference(values[n - 1]));
}
