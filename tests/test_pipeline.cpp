// Pipeline: chunked upload / compute / download gives exactly the serial result for every
// chunking, mode and kind of host memory; empty and tiny inputs; a throwing compute function
// leaves nothing running and the pipeline usable; the report and timeline add up.
#include "support.hpp"

#include <stdexcept>

namespace {

constexpr std::uint32_t iterations = 8;

// What the busy kernel computes for one element: `iterations` fused multiply-adds, rounded once
// each (std::fma matches the device bit for bit).
float busy_reference(float v) {
    for (std::uint32_t k = 0; k < iterations; ++k) v = std::fma(v, 0.9999f, 0.0001f);
    return v;
}

std::vector<float> reference(const std::vector<float>& input) {
    std::vector<float> out(input.size());
    for (std::size_t i = 0; i < input.size(); ++i) out[i] = busy_reference(input[i]);
    return out;
}

// The compute function: output = busy(input), as a device copy then busy in place on the output
// (or busy on the one buffer when the pipeline runs in place).
struct BusyChunk {
    dualrt::Kernel kernel = test::device().kernel("busy");
    std::size_t calls = 0;
    void operator()(dualrt::Chunk<float, float>& chunk) {
        ++calls;
        if (chunk.output.impl() != chunk.input.impl() ||
            chunk.output.offset_bytes() != chunk.input.offset_bytes())
            chunk.queue.copy(chunk.output, chunk.input);
        chunk.queue.launch(kernel, {chunk.size()}, {}, chunk.output,
                           static_cast<std::uint32_t>(chunk.size()), iterations);
    }
};

struct Setup {
    dualrt::PipelineMode mode;
    dualrt::Chunking chunking;
    bool in_place;
    bool pinned;
};

std::string describe(const Setup& s) {
    return std::string(dualrt::to_string(s.mode)) + ", " + s.chunking.str() +
           (s.in_place ? ", in place" : "") + (s.pinned ? ", pinned host" : ", pageable host");
}

// Runs the busy pipeline over n random floats; "" when the output equals the reference.
std::string run_and_compare(const Setup& setup, std::size_t n, test::Random& rnd,
                            dualrt::PipelineReport* report_out = nullptr) {
    dualrt::PipelineOptions options;
    options.mode = setup.mode;
    options.chunking = setup.chunking;
    options.in_place = setup.in_place;
    dualrt::Pipeline pipeline(test::device(), options);
    const auto input = rnd.floats(n);
    const auto expected = reference(input);
    BusyChunk busy;
    dualrt::PipelineReport report;
    std::vector<float> output(n, test::poison_float());
    if (setup.pinned) {
        auto host_in = test::device().alloc_host<float>(n);
        auto host_out = test::device().alloc_host<float>(n);
        std::copy(input.begin(), input.end(), host_in.begin());
        std::fill(host_out.begin(), host_out.end(), test::poison_float());
        report = pipeline.run(host_in, host_out, busy);
        std::copy(host_out.begin(), host_out.end(), output.begin());
    } else {
        report = pipeline.run(input, output, busy);
    }
    if (busy.calls != report.chunks)
        return "the compute function ran " + std::to_string(busy.calls) + " times for " +
               std::to_string(report.chunks) + " chunks";
    if (report_out) *report_out = report;
    return test::differences(output, expected);
}

}  // namespace

TEST_CASE("pipeline: every chunking, mode and host memory gives the serial result") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    using dualrt::Chunking;
    using dualrt::PipelineMode;
    const std::size_t n = 100003;  // prime: no chunk count divides it
    for (auto mode : {PipelineMode::two_queues, PipelineMode::three_queues}) {
        for (bool pinned : {false, true}) {
            for (bool in_place : {false, true}) {
                for (auto chunking : {Chunking::count(8), Chunking::count(7), Chunking::count(1),
                                      Chunking::elements(4096), Chunking::elements(n + 5)}) {
                    const Setup setup{mode, chunking, in_place, pinned};
                    CAPTURE(describe(setup));
                    CHECK(run_and_compare(setup, n, rnd) == "");
                }
            }
        }
    }
}

TEST_CASE("pipeline: a count that divides the input gives equal chunks") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::PipelineReport report;
    const Setup setup{dualrt::PipelineMode::three_queues, dualrt::Chunking::count(16), false, true};
    CHECK(run_and_compare(setup, 16 * 4096, rnd, &report) == "");
    CHECK(report.chunks == 16);
    CHECK(report.chunk_elements == 4096);
}

TEST_CASE("pipeline: auto measures, picks a chunk count and gets the serial result") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::PipelineReport report;
    // Large enough for the calibration chunks (3 small + 3 large of at least 64 Ki floats).
    const std::size_t n = (std::size_t{8} << 20) / sizeof(float) * 3 + 123;
    const Setup setup{dualrt::PipelineMode::automatic, dualrt::Chunking::automatic(), false, true};
    CHECK(run_and_compare(setup, n, rnd, &report) == "");
    INFO(report.summary());
    CHECK(test::contains(report.chunking, "measured"));
    CHECK(report.chunks > 6);  // the calibration chunks, then at least one more
    CHECK(report.mode != dualrt::PipelineMode::automatic);

    // An input too small to measure is still cut and computed.
    CHECK(run_and_compare(setup, 5000, rnd, &report) == "");
    CHECK(report.chunks >= 1);
}

TEST_CASE("pipeline: empty input and input smaller than one chunk") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::Pipeline pipeline(test::device());
    std::vector<float> none_in, none_out;
    BusyChunk busy;
    const auto report = pipeline.run(none_in, none_out, busy);
    CHECK(report.chunks == 0);
    CHECK(busy.calls == 0);
    CHECK(report.measured_ms == 0.0);

    dualrt::PipelineReport small;
    const Setup setup{dualrt::PipelineMode::automatic, dualrt::Chunking::elements(1 << 20), false,
                      false};
    CHECK(run_and_compare(setup, 1000, rnd, &small) == "");
    CHECK(small.chunks == 1);
    CHECK(run_and_compare(setup, 1, rnd) == "");
}

TEST_CASE("pipeline: an exception from the compute function drains the queues and is rethrown") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(10);
    dualrt::Pipeline pipeline(test::device(), options);
    const std::size_t n = 10 * 4096;
    auto input = rnd.floats(n);
    std::vector<float> output(n, test::poison_float());
    BusyChunk busy;
    struct Failure : std::runtime_error {
        using std::runtime_error::runtime_error;
    };
    bool caught = false;
    try {
        pipeline.run(input, output, [&](dualrt::Chunk<float, float>& chunk) {
            if (chunk.index == 3) throw Failure("chunk 3 failed");
            busy(chunk);
        });
    } catch (const Failure& e) {
        caught = true;
        CHECK(std::string(e.what()) == "chunk 3 failed");
    }
    CHECK(caught);
    CHECK(busy.calls == 3);
    // Usable again, with the same queues and buffers.
    const auto expected = reference(input);
    std::fill(output.begin(), output.end(), test::poison_float());
    BusyChunk again;
    pipeline.run(input, output, again);
    CHECK(test::differences(output, expected) == "");
}

TEST_CASE("pipeline: the report and the timeline add up") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (auto mode : {dualrt::PipelineMode::two_queues, dualrt::PipelineMode::three_queues}) {
        CAPTURE(dualrt::to_string(mode));
        dualrt::PipelineReport r;
        const Setup setup{mode, dualrt::Chunking::count(6), false, true};
        REQUIRE(run_and_compare(setup, 6 * 8192, rnd, &r) == "");
        INFO(r.summary());
        CHECK(r.mode == mode);
        CHECK(r.queues == (mode == dualrt::PipelineMode::three_queues ? 3u : 2u));
        CHECK(r.chunks == 6);
        CHECK(r.depth == r.queues);
        CHECK(r.device_bytes == r.depth * 2 * 8192 * sizeof(float));
        CHECK(r.upload_ms > 0.0);
        CHECK(r.compute_ms > 0.0);
        CHECK(r.download_ms > 0.0);
        CHECK(r.serial_ms == doctest::Approx(r.upload_ms + r.compute_ms + r.download_ms));
        CHECK(r.bound_ms <= r.serial_ms);
        CHECK(r.measured_ms >= r.bound_ms * 0.999);  // no schedule beats the busiest queue
        CHECK(r.speedup() > 0.0);
        CHECK(r.efficiency() <= 1.001);
        CHECK(r.timeline.tracks.size() == r.queues);
        CHECK(r.timeline.spans.size() == 3 * r.chunks);
        for (const auto& span : r.timeline.spans) {
            CHECK(span.track < r.timeline.tracks.size());
            CHECK(span.start_ms >= -1e-3);
            CHECK(span.end_ms >= span.start_ms);
            CHECK(span.end_ms <= r.measured_ms + 1e-3);
        }
    }
}

TEST_CASE("pipeline: bad options and arguments are errors") {
    using dualrt::Errc;
    dualrt::PipelineOptions depth_one;
    depth_one.depth = 1;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "depth 1",
                       dualrt::Pipeline(test::device(), depth_one));
    dualrt::PipelineOptions zero_chunks;
    zero_chunks.chunking = dualrt::Chunking::count(0);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "count(0)",
                       dualrt::Pipeline(test::device(), zero_chunks));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Device is empty",
                       dualrt::Pipeline(dualrt::Device{}));

    dualrt::Pipeline pipeline(test::device());
    std::vector<float> in(10), out(11);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "expected the same count",
                       pipeline.run(in, out, [](dualrt::Chunk<float, float>&) {}));

    dualrt::PipelineOptions in_place;
    in_place.in_place = true;
    dualrt::Pipeline mixed(test::device(), in_place);
    std::vector<float> floats(10);
    std::vector<double> doubles(10);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "in_place",
                       mixed.run(floats, doubles, [](dualrt::Chunk<float, double>&) {}));
}
