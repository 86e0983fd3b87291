// Pipeline runs that replay their recorded work (PipelineOptions::replay): a replayed run gives
// bit for bit what the same run gives enqueued command by command, with the host arrays' new
// contents; a compute function whose commands change is recorded anew, never replayed stale;
// runs that cannot replay say why and run as usual; a compute function that enqueues what a
// recording cannot hold is a clear error that leaves the Pipeline usable. On a device that
// records into a command list (DUALRT_RECORDING=command_list) no run replays, and each says why.
#include "pipeline_support.hpp"

#include <cmath>
#include <cstring>

namespace {

// out = busy(in) with `iterations` fused multiply-adds per element, as a device copy then busy
// in place on the output chunk: two commands a chunk, one with a scalar.
float busy_reference(float v, std::uint32_t iterations) {
    for (std::uint32_t k = 0; k < iterations; ++k) v = std::fma(v, 0.9999f, 0.0001f);
    return v;
}

struct Busy {
    dualrt::Kernel kernel = test::device().kernel("busy");
    std::uint32_t iterations = 8;
    std::size_t calls = 0;
    void operator()(dualrt::Chunk<float, float>& chunk) {
        ++calls;
        chunk.queue.copy(chunk.output, chunk.input);
        chunk.queue.launch(kernel, {chunk.size()}, {}, chunk.output,
                           static_cast<std::uint32_t>(chunk.size()), iterations);
    }
};

// Whether the device replays Pipeline runs at all: a command list runs a recording's lanes one
// after another on one queue, so the Pipeline does not replay there.
bool replays_pipelines() {
    const auto path = test::device().info().recording;
    return path == dualrt::RecordingPath::graph || path == dualrt::RecordingPath::command_buffer;
}

dualrt::PipelineOptions replay_options(
    std::size_t chunks, dualrt::PipelineMode mode = dualrt::PipelineMode::lanes) {
    dualrt::PipelineOptions options;
    options.mode = mode;
    options.chunking = dualrt::Chunking::count(chunks);
    options.depth = 3;  // set, so no lane is left to choose: runs replay from the second
    options.replay = true;
    return options;
}

// New random contents for `input`, NaN in `output`; returns the expected output.
std::vector<float> refill(dualrt::HostBuffer<float>& input, dualrt::HostBuffer<float>& output,
                          std::uint32_t iterations, test::Random& rnd) {
    const auto values = rnd.floats(input.size());
    std::copy(values.begin(), values.end(), input.begin());
    std::fill(output.begin(), output.end(), std::nanf(""));
    std::vector<float> expected(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        expected[i] = busy_reference(values[i], iterations);
    return expected;
}

std::vector<float> contents(const dualrt::HostBuffer<float>& buffer) {
    return std::vector<float>(buffer.begin(), buffer.end());
}

// `runs` runs of `busy` on `pipeline` over n fresh random floats in pinned arrays, each output
// checked against the host; their reports.
std::vector<dualrt::PipelineReport> checked_runs(dualrt::Pipeline& pipeline, std::size_t n,
                                                 Busy& busy, int runs, test::Random& rnd) {
    auto input = pipeline.device().alloc_host<float>(n);
    auto output = pipeline.device().alloc_host<float>(n);
    std::vector<dualrt::PipelineReport> reports;
    for (int run = 0; run < runs; ++run) {
        const auto expected = refill(input, output, busy.iterations, rnd);
        reports.push_back(pipeline.run(input, output, busy));
        CHECK(test::differences(contents(output), expected) == "");
    }
    return reports;
}

}  // namespace

TEST_CASE("pipeline replay: runs over one layout replay their recording and give, bit for bit, "
          "what the same run gives enqueued command by command, with the host's new inputs, in "
          "every mode") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    for (const dualrt::PipelineMode mode :
         {dualrt::PipelineMode::lanes, dualrt::PipelineMode::two_queues,
          dualrt::PipelineMode::three_queues}) {
        const std::string mode_name = dualrt::to_string(mode);
        CAPTURE(mode_name);
        const std::size_t n = rnd.size(3000, 40000);
        const std::size_t chunks = rnd.size(3, 9);
        CAPTURE(n);
        CAPTURE(chunks);
        auto input = device.alloc_host<float>(n);
        auto output = device.alloc_host<float>(n);
        dualrt::Pipeline replaying(device, replay_options(chunks, mode));
        dualrt::PipelineOptions plain_options = replay_options(chunks, mode);
        plain_options.replay = false;
        dualrt::Pipeline plain(device, plain_options);
        auto plain_output = device.alloc_host<float>(n);
        Busy busy, busy_plain;

        for (int run = 0; run < 5; ++run) {
            CAPTURE(run);
            const auto expected = refill(input, output, busy.iterations, rnd);
            const auto report = replaying.run(input, output, busy);
            CAPTURE(report.replay);
            CHECK(busy.calls == static_cast<std::size_t>(run + 1) * chunks);  // every run
            CHECK(test::differences(contents(output), expected) == "");
            std::fill(plain_output.begin(), plain_output.end(), std::nanf(""));
            plain.run(input, plain_output, busy_plain);
            CHECK(test::differences(contents(output), contents(plain_output)) == "");
            CHECK(report.mode == mode);
            CHECK(report.chunks == chunks);
            CHECK(report.measured_ms > 0.0);
            CHECK(test::contains(report.summary(), "replay: "));
            if (!replays_pipelines()) {
                CHECK(!report.replayed);
                CHECK(test::contains(report.replay, "command list"));
            } else if (run == 0) {
                CHECK(!report.replayed);
                CHECK(report.replay == "not replayed: the layout's first run times its stages");
            } else {
                CHECK(report.replayed);
                CHECK(report.timed_chunks == 0);
                CHECK(report.replay == (run == 1 ? std::string("recorded, and replayed")
                                                 : "replayed (run " + std::to_string(run) +
                                                       " of its recording)"));
            }
        }
    }
}

TEST_CASE("pipeline replay: a compute function whose commands change is recorded anew, never "
          "replayed with the old ones") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    const std::size_t n = rnd.size(2000, 20000);
    auto input = device.alloc_host<float>(n);
    auto output = device.alloc_host<float>(n);
    dualrt::Pipeline pipeline(device, replay_options(4));
    Busy busy;
    for (const std::uint32_t iterations : {8u, 8u, 8u, 3u, 3u, 11u}) {
        CAPTURE(iterations);
        busy.iterations = iterations;
        const auto expected = refill(input, output, iterations, rnd);
        const auto report = pipeline.run(input, output, busy);
        CAPTURE(report.replay);
        CHECK(test::differences(contents(output), expected) == "");
    }
    // The last change, 3 to 11, was seen: the run before it replayed 3, this one recorded 11.
    busy.iterations = 5;
    const auto expected = refill(input, output, 5, rnd);
    const auto report = pipeline.run(input, output, busy);
    CHECK(test::differences(contents(output), expected) == "");
    if (replays_pipelines()) {
        CHECK(report.replayed);
        CHECK(test::contains(report.replay, "recorded anew (the compute function enqueued other "
                                            "commands than the recording held)"));
    }
}

TEST_CASE("pipeline replay: runs over other host arrays, or other chunks, are recorded for "
          "their own layout") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    const std::size_t n = rnd.size(2000, 20000);
    dualrt::HostBuffer<float> inputs[2] = {device.alloc_host<float>(n), device.alloc_host<float>(n)};
    dualrt::HostBuffer<float> outputs[2] = {device.alloc_host<float>(n),
                                            device.alloc_host<float>(n)};
    dualrt::Pipeline pipeline(device, replay_options(5));
    Busy busy;
    for (int run = 0; run < 6; ++run) {
        CAPTURE(run);
        const int which = run % 2;
        const auto expected = refill(inputs[which], outputs[which], busy.iterations, rnd);
        const auto report = pipeline.run(inputs[which], outputs[which], busy);
        CAPTURE(report.replay);
        CHECK(test::differences(contents(outputs[which]), expected) == "");
        if (run > 0 && replays_pipelines())
            CHECK(report.replay == "recorded, and replayed");  // the other pair's layout each time
    }
    // A shorter run of the first pair: other chunks, so a layout of its own too.
    const std::size_t shorter = n / 2;
    const auto values = rnd.floats(shorter);
    std::copy(values.begin(), values.end(), inputs[0].begin());
    std::fill(outputs[0].begin(), outputs[0].end(), std::nanf(""));
    const auto report = pipeline.run(inputs[0].view(0, shorter), outputs[0].view(0, shorter), busy);
    CAPTURE(report.replay);
    for (std::size_t i = 0; i < shorter; ++i)
        if (outputs[0][i] != busy_reference(values[i], busy.iterations)) {
            FAIL_CHECK("element " << i << " is " << outputs[0][i]);
            break;
        }
    CHECK(std::isnan(outputs[0][shorter]));  // past the run: untouched
}

TEST_CASE("pipeline replay: runs that cannot replay say why and run as usual") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    const std::size_t n = rnd.size(2000, 20000);
    const auto values = rnd.floats(n);
    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = busy_reference(values[i], 8);
    Busy busy;

    SUBCASE("chunks of 256 KiB or more") {
        dualrt::Pipeline pipeline(device, replay_options(2));
        const std::size_t big = (std::size_t{3} << 18) / sizeof(float);  // two of 384 KiB
        const auto reports = checked_runs(pipeline, big, busy, 3, rnd);
        for (std::size_t run = 0; run < reports.size(); ++run) {
            CHECK(!reports[run].replayed);
            if (run > 0 && replays_pipelines())
                CHECK(test::contains(reports[run].replay, "a replay gains nothing"));
        }
    }
    SUBCASE("pageable arrays") {
        dualrt::Pipeline pipeline(device, replay_options(4));
        for (int run = 0; run < 3; ++run) {
            std::vector<float> out(n, std::nanf(""));
            const auto report = pipeline.run(values, out, busy);
            CHECK(test::differences(out, expected) == "");
            CHECK(!report.replayed);
            if (run > 0) CHECK(test::contains(report.replay, "pageable"));
        }
    }
    SUBCASE("every chunk timed") {
        auto options = replay_options(4);
        options.timing = dualrt::PipelineTiming::every_chunk;
        dualrt::Pipeline pipeline(device, options);
        for (const auto& report : checked_runs(pipeline, n, busy, 3, rnd)) {
            CHECK(!report.replayed);
            CHECK(report.timed_chunks == 4);
            CHECK(test::contains(report.replay, "every_chunk"));
        }
    }
    SUBCASE("replay off") {
        auto options = replay_options(4);
        options.replay = false;
        dualrt::Pipeline pipeline(device, options);
        for (const auto& report : checked_runs(pipeline, n, busy, 3, rnd)) {
            CHECK(!report.replayed);
            CHECK(report.replay.empty());
            CHECK(!test::contains(report.summary(), "replay: "));
        }
    }
}

TEST_CASE("pipeline replay: a compute function that needs the host while its chunk runs is an "
          "error naming the replay, and the Pipeline stays usable") {
    if (!replays_pipelines()) {
        MESSAGE("SKIPPED: this device records into a command list, where no Pipeline run replays");
        return;
    }
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    const std::size_t n = rnd.size(2000, 20000);
    auto input = device.alloc_host<float>(n);
    auto output = device.alloc_host<float>(n);
    dualrt::Pipeline pipeline(device, replay_options(4));
    Busy busy;
    auto other = device.create_queue();
    const auto waits_on_host = [&](dualrt::Chunk<float, float>& chunk) {
        busy(chunk);
        chunk.queue.finish();  // fine in a plain run; a replay has no host to wait
    };
    const auto other_queue = [&](dualrt::Chunk<float, float>& chunk) {
        busy(chunk);
        chunk.queue.wait(other.record());  // work outside the recording
    };
    // The first run of a layout runs plainly, so each case needs a layout that has run.
    auto expected = refill(input, output, busy.iterations, rnd);
    pipeline.run(input, output, waits_on_host);
    CHECK(test::differences(contents(output), expected) == "");
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "PipelineOptions::replay",
                       pipeline.run(input, output, waits_on_host));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "chunk.queue",
                       pipeline.run(input, output, other_queue));
    // The queues record nothing any more: the same Pipeline records and replays a good run.
    for (int run = 0; run < 2; ++run) {
        expected = refill(input, output, busy.iterations, rnd);
        CHECK(pipeline.run(input, output, busy).replayed);
        CHECK(test::differences(contents(output), expected) == "");
    }
    // A function that changes to one that cannot be recorded fails as it is digested too.
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "PipelineOptions::replay",
                       pipeline.run(input, output, waits_on_host));
    expected = refill(input, output, busy.iterations, rnd);
    const auto report = pipeline.run(input, output, busy);
    CHECK(report.replayed);
    CHECK(test::differences(contents(output), expected) == "");
}

TEST_CASE("pipeline replay: a compute function that writes memory of its own is compared with "
          "its recording before the replay runs, so that no replay writes stale work into it") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    auto queue = device.create_queue();
    const auto saxpy = device.kernel("saxpy");
    // Four chunks of a multiple of 256 floats: views as kernel arguments start on OpenCL's
    // alignment of sub-buffers (512 bytes on NVIDIA's driver, 128 on PoCL).
    const std::size_t n = 1024 * rnd.size(2, 20);
    auto input = device.alloc_host<float>(n);
    auto output = device.alloc_host<float>(n);
    for (std::size_t i = 0; i < n; ++i) input[i] = static_cast<float>(rnd.size(0, 8));
    // sum += a * input, run after run, in a buffer the Pipeline does not own: a stale replay
    // would add an a of an earlier run once more. Small integers keep every sum exact.
    auto sum = device.alloc<float>(n);
    queue.fill(sum, 0.0f, dualrt::Sync::blocking);
    float a = 1.0f;
    const auto accumulate = [&](dualrt::Chunk<float, float>& chunk) {
        chunk.queue.copy(chunk.output, chunk.input);
        chunk.queue.launch(saxpy, {chunk.size()}, {}, static_cast<std::uint32_t>(chunk.size()),
                           a, chunk.input, sum.view(chunk.offset, chunk.size()));
    };
    dualrt::Pipeline pipeline(device, replay_options(4));
    float total = 0.0f;
    for (const float next : {1.0f, 1.0f, 1.0f, 2.0f, 2.0f, 3.0f, 1.0f}) {
        a = next;
        total += next;
        std::fill(output.begin(), output.end(), std::nanf(""));
        const auto report = pipeline.run(input, output, accumulate);
        CAPTURE(report.replay);
        CHECK(test::differences(contents(output), contents(input)) == "");
    }
    std::vector<float> got(n), want(n);
    queue.copy(got, sum, dualrt::Sync::blocking);
    for (std::size_t i = 0; i < n; ++i) want[i] = total * input[i];
    CHECK(test::differences(got, want) == "");
}

TEST_CASE("pipeline replay: a run whose output is its input replays only what it has compared, "
          "so that a changed compute function never reads what a stale replay wrote") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    const std::size_t n = rnd.size(2000, 20000);
    auto data = device.alloc_host<float>(n);
    const auto start = rnd.floats(n);
    std::copy(start.begin(), start.end(), data.begin());
    std::vector<float> expected = start;
    dualrt::Pipeline pipeline(device, replay_options(4));
    Busy busy;
    for (const std::uint32_t iterations : {4u, 4u, 4u, 9u, 9u, 2u}) {
        CAPTURE(iterations);
        busy.iterations = iterations;
        for (float& v : expected) v = busy_reference(v, iterations);
        const auto report = pipeline.run(data, data, busy);  // in place on the host
        CAPTURE(report.replay);
        CHECK(test::differences(contents(data), expected) == "");
    }
}

TEST_CASE("pipeline replay: chunks with halos over several inputs replay as they run, in every "
          "mode") {
    namespace tp = test::pipeline;
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    const auto window = tp::kernel("pipeline_test_window");
    const std::size_t n = rnd.size(10000, 30000), reach = 3;
    auto a = device.alloc_host<std::uint32_t>(n), b = device.alloc_host<std::uint32_t>(n);
    auto out = device.alloc_host<std::uint32_t>(n);
    const auto compute = [&](auto& chunk) {
        auto [da, db] = chunk.inputs;
        chunk.queue.launch(window, {chunk.size()}, {}, tp::u32(chunk.size()),
                           tp::u32(chunk.halo_before), tp::u32(da.size()), tp::u32(reach),
                           tp::u32(reach), da, db, 1u, std::get<0>(chunk.outputs));
    };
    for (const dualrt::PipelineMode mode :
         {dualrt::PipelineMode::lanes, dualrt::PipelineMode::two_queues,
          dualrt::PipelineMode::three_queues}) {
        const std::string mode_name = dualrt::to_string(mode);
        CAPTURE(mode_name);
        dualrt::Pipeline pipeline(device, replay_options(9, mode));
        for (int run = 0; run < 4; ++run) {
            CAPTURE(run);
            const auto av = tp::random_u32(rnd, n), bv = tp::random_u32(rnd, n);
            std::copy(av.begin(), av.end(), a.begin());
            std::copy(bv.begin(), bv.end(), b.begin());
            std::fill(out.begin(), out.end(), test::poison_u32);
            auto expected = tp::window_reference(av, reach, reach);
            for (std::size_t i = 0; i < n; ++i) expected[i] += bv[i];
            const auto report =
                pipeline.run(dualrt::inputs(a, b).with_halo(dualrt::Halo::elements(reach, reach)),
                             dualrt::outputs(out), compute);
            CAPTURE(report.replay);
            CHECK(test::differences(std::vector<std::uint32_t>(out.begin(), out.end()),
                                    expected) == "");
            if (run > 0 && replays_pipelines()) CHECK(report.replayed);
        }
    }
}
