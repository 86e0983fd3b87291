// Pipeline with one input and one output array: chunked upload / compute / download gives exactly
// the serial result for every chunking, mode, timing and kind of host memory; empty and tiny
// inputs; a throwing compute function leaves nothing running and the pipeline usable; the report
// and timeline add up. Several arrays: test_pipeline_arrays.cpp; halos: test_pipeline_halo.cpp;
// automatic chunking: test_pipeline_auto.cpp.
#include "support.hpp"

#include <future>
#include <stdexcept>
#include <thread>

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
// (or busy on the one buffer when the pipeline runs in place). Checks that the chunks tile the
// arrays in order, each with a view of its own size.
struct BusyChunk {
    dualrt::Kernel kernel = test::device().kernel("busy");
    std::size_t calls = 0, next_offset = 0;
    std::string tiling;  // "" while the chunks tile the arrays
    void operator()(dualrt::Chunk<float, float>& chunk) {
        if (tiling.empty() && (chunk.index != calls || chunk.offset != next_offset ||
                               chunk.size() == 0 || chunk.input.size() != chunk.size() ||
                               chunk.output.size() != chunk.size() || chunk.halo_before != 0 ||
                               chunk.halo_after != 0))
            tiling = "chunk " + std::to_string(chunk.index) + " at " +
                     std::to_string(chunk.offset) + " of " + std::to_string(chunk.size()) +
                     " elements after " + std::to_string(calls) + " chunks up to " +
                     std::to_string(next_offset);
        ++calls;
        next_offset = chunk.offset + chunk.size();
        if (chunk.output.native_handle() != chunk.input.native_handle() ||
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
    dualrt::PipelineTiming timing = dualrt::PipelineTiming::sampled;
};

std::string describe(const Setup& s) {
    return std::string(dualrt::to_string(s.mode)) + ", " + s.chunking.str() +
           (s.in_place ? ", in place" : "") + (s.pinned ? ", pinned host" : ", pageable host") +
           ", timing " + dualrt::to_string(s.timing);
}

// Runs the busy pipeline over n random floats; "" when the output equals the reference.
std::string run_and_compare(const Setup& setup, std::size_t n, test::Random& rnd,
                            dualrt::PipelineReport* report_out = nullptr) {
    dualrt::PipelineOptions options;
    options.mode = setup.mode;
    options.chunking = setup.chunking;
    options.in_place = setup.in_place;
    options.timing = setup.timing;
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
    if (!busy.tiling.empty()) return "bad chunks: " + busy.tiling;
    if (busy.calls != report.chunks || busy.next_offset != n)
        return "the compute function ran " + std::to_string(busy.calls) + " times over " +
               std::to_string(busy.next_offset) + " elements for " +
               std::to_string(report.chunks) + " chunks over " + std::to_string(n);
    if (report_out) *report_out = report;
    return test::differences(output, expected);
}

const dualrt::PipelineMode all_modes[] = {dualrt::PipelineMode::lanes,
                                          dualrt::PipelineMode::two_queues,
                                          dualrt::PipelineMode::three_queues};

}  // namespace

TEST_CASE("pipeline: every chunking, mode and host memory gives the serial result") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    using dualrt::Chunking;
    const std::size_t n = 100003;  // prime: no chunk count divides it
    for (auto mode : all_modes) {
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

TEST_CASE("pipeline: timing every chunk or a sample gives the same result") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (auto mode : all_modes) {
        for (auto timing : {dualrt::PipelineTiming::sampled, dualrt::PipelineTiming::every_chunk}) {
            const Setup setup{mode, dualrt::Chunking::count(23), false, false, timing};
            CAPTURE(describe(setup));
            CHECK(run_and_compare(setup, 23 * 1000 + 17, rnd) == "");
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
    CHECK(report.chunk_sizes == std::vector<std::size_t>(16, 4096));
}

TEST_CASE("pipeline: lanes are the automatic mode, with four queues by default") {
    dualrt::Pipeline pipeline(test::device());
    CHECK(pipeline.mode() == dualrt::PipelineMode::lanes);
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::PipelineReport report;
    const Setup setup{dualrt::PipelineMode::automatic, dualrt::Chunking::count(9), false, true};
    CHECK(run_and_compare(setup, 9 * 1000, rnd, &report) == "");
    CHECK(report.mode == dualrt::PipelineMode::lanes);
    CHECK(report.queues == 4);
    CHECK(report.depth == 4);
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
    for (auto mode : all_modes) {
        CAPTURE(dualrt::to_string(mode));
        dualrt::PipelineOptions options;
        options.mode = mode;
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
}

TEST_CASE("pipeline: run() entered again during a run is an error, and the run goes on unharmed") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(8);
    dualrt::Pipeline pipeline(test::device(), options);
    const std::size_t n = 8 * 4096;
    const auto input = rnd.floats(n);
    const auto expected = reference(input);
    std::vector<float> output(n, test::poison_float()), other(n, test::poison_float());
    const std::string already = "this Pipeline is already running";
    SUBCASE("from its own compute function") {
        BusyChunk busy;
        std::string inner;
        pipeline.run(input, output, [&](dualrt::Chunk<float, float>& chunk) {
            if (chunk.index == 2) {
                try {
                    pipeline.run(input, other, BusyChunk{});
                } catch (const dualrt::Error& e) {
                    CHECK(e.errc() == dualrt::Errc::invalid_argument);
                    inner = e.what();
                }
            }
            busy(chunk);
        });
        CHECK(test::contains(inner, already));
    }
    SUBCASE("from another thread") {
        std::promise<void> running, tried;
        std::future<void> may_finish = tried.get_future();
        std::thread first([&] {
            BusyChunk busy;
            pipeline.run(input, output, [&](dualrt::Chunk<float, float>& chunk) {
                if (chunk.index == 0) {
                    running.set_value();
                    may_finish.wait();
                }
                busy(chunk);
            });
        });
        running.get_future().wait();
        std::string second;
        try {
            pipeline.run(input, other, BusyChunk{});
        } catch (const dualrt::Error& e) {
            second = e.what();
        }
        tried.set_value();
        first.join();
        CHECK(test::contains(second, already));
    }
    CHECK(test::differences(output, expected) == "");
    // Usable again once the run is over.
    pipeline.run(input, other, BusyChunk{});
    CHECK(test::differences(other, expected) == "");
}

TEST_CASE("pipeline: the report and the timeline add up when every chunk is timed") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (auto mode : all_modes) {
        CAPTURE(dualrt::to_string(mode));
        dualrt::PipelineReport r;
        const Setup setup{mode, dualrt::Chunking::count(6), false, true,
                          dualrt::PipelineTiming::every_chunk};
        REQUIRE(run_and_compare(setup, 6 * 8192, rnd, &r) == "");
        INFO(r.summary());
        CHECK(r.mode == mode);
        const std::size_t queues = mode == dualrt::PipelineMode::lanes          ? 4
                                   : mode == dualrt::PipelineMode::three_queues ? 3
                                                                                : 2;
        CHECK(r.queues == queues);
        CHECK(r.depth == (mode == dualrt::PipelineMode::two_queues ? 2 : 4));
        CHECK(r.chunks == 6);
        CHECK(r.timed_chunks == 6);
        CHECK(r.input_arrays == 1);
        CHECK(r.output_arrays == 1);
        CHECK(r.device_bytes == r.depth * 2 * 8192 * sizeof(float));
        CHECK(test::contains(r.timing, "every stage of every chunk timed"));
        CHECK(r.upload_ms > 0.0);
        CHECK(r.compute_ms > 0.0);
        CHECK(r.download_ms > 0.0);
        CHECK(r.serial_ms == doctest::Approx(r.upload_ms + r.compute_ms + r.download_ms));
        CHECK(r.bound_ms <= r.serial_ms);
        // Every stage's span starts where the engine's previous one ended, so no track holds
        // more than the run's time.
        CHECK(r.measured_ms >= r.bound_ms * 0.999);
        CHECK(r.stage_times == dualrt::StageTimes::measured);
        REQUIRE(r.speedup());
        CHECK(*r.speedup() > 0.0);
        REQUIRE(r.efficiency());
        CHECK(*r.efficiency() <= 1.0);
        const std::size_t tracks = mode == dualrt::PipelineMode::two_queues ? 2 : 3;
        CHECK(r.timeline.tracks.size() == tracks);
        CHECK(r.timeline.spans.size() == 3 * r.chunks);
        for (const auto& span : r.timeline.spans) {
            CHECK(span.track < r.timeline.tracks.size());
            CHECK(span.start_ms >= -1e-3);
            CHECK(span.end_ms >= span.start_ms);
            CHECK(span.end_ms <= r.measured_ms + 1e-3);
        }
    }
}

TEST_CASE("pipeline: sampled timing times a few chunks and says which") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(40);
    dualrt::Pipeline pipeline(test::device(), options);
    const std::size_t n = 40 * 2048;
    const auto input = rnd.floats(n);
    std::vector<float> output(n);
    BusyChunk busy;
    // The first run of a layout times windows at the start, middle and end.
    auto r = pipeline.run(input, output, busy);
    INFO(r.summary());
    CHECK(r.timed_chunks > 0);
    CHECK(r.timed_chunks < r.chunks);
    CHECK(test::contains(r.timing, "stages timed on"));
    CHECK(test::contains(r.timing, "estimated from a model"));
    CHECK(r.timeline.spans.size() == 3 * r.timed_chunks);
    CHECK(r.measured_ms > 0.0);
    // A stage whose timed spans all overlapped another queue's (a loaded CPU device runs its
    // queues side by side) teaches the model nothing; the report must then claim no stage times.
    if (r.stage_times == dualrt::StageTimes::not_measured) {
        CHECK(test::contains(r.timing, "nothing to estimate them from"));
        CHECK(r.serial_ms == 0.0);
    } else {
        CHECK(r.upload_ms > 0.0);
        CHECK(r.serial_ms == doctest::Approx(r.upload_ms + r.compute_ms + r.download_ms));
    }
    // Later runs time chunks only as their budget allows; every run still has its measured time.
    for (int run = 0; run < 3; ++run) {
        BusyChunk again;
        r = pipeline.run(input, output, again);
        CHECK(r.measured_ms > 0.0);
        CHECK(r.timeline.spans.size() == 3 * r.timed_chunks);
        CHECK(test::contains(r.timing, r.timed_chunks == 0 ? "no chunk's stages timed"
                                                           : "stages timed on"));
    }
    CHECK(test::differences(output, reference(input)) == "");
}

TEST_CASE("pipeline: bad options and arguments are errors") {
    using dualrt::Errc;
    dualrt::PipelineOptions depth_one;
    depth_one.depth = 1;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "depth 1",
                       dualrt::Pipeline(test::device(), depth_one));
    dualrt::PipelineOptions too_many_lanes;
    too_many_lanes.depth = 64;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "expected at most 16",
                       dualrt::Pipeline(test::device(), too_many_lanes));
    dualrt::PipelineOptions zero_chunks;
    zero_chunks.chunking = dualrt::Chunking::count(0);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "count(0)",
                       dualrt::Pipeline(test::device(), zero_chunks));
    zero_chunks.chunking = dualrt::Chunking::elements(0);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "elements(0) is empty; expected at least 1",
                       dualrt::Pipeline(test::device(), zero_chunks));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Device is empty",
                       dualrt::Pipeline(dualrt::Device{}));

    dualrt::Pipeline pipeline(test::device());
    std::vector<float> in(10), out(11);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "output 0 holds 11 elements, but input 0 holds 10",
                       pipeline.run(in, out, [](dualrt::Chunk<float, float>&) {}));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "expected the same count",
                       pipeline.run(in, out, [](dualrt::Chunk<float, float>&) {}));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the pointer of input 0 is null",
                       pipeline.run(static_cast<const float*>(nullptr), out.data(), 5,
                                    [](dualrt::Chunk<float, float>&) {}));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the pointer of output 0 is null",
                       pipeline.run(in.data(), static_cast<float*>(nullptr), 5,
                                    [](dualrt::Chunk<float, float>&) {}));

    dualrt::PipelineOptions in_place;
    in_place.in_place = true;
    dualrt::Pipeline mixed(test::device(), in_place);
    std::vector<float> floats(10);
    std::vector<double> doubles(10);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "in_place needs one element size per pair",
                       mixed.run(floats, doubles, [](dualrt::Chunk<float, double>&) {}));
}
