// What a Pipeline run asks of the backend, counted on an in-process backend (no device): with
// lanes and pinned memory a chunk is its enqueues and nothing else; with stage queues, the waits
// between stages; timed events only at the run's start and end and on the timed chunks.
#include "pipeline_counting_backend.hpp"
#include "tune/lane_choice.hpp"

#include <dualrt/dualrt.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>
#include <thread>

namespace {

bool test_contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

struct Counted {
    dualrt::PipelineReport report;
    test::counting::Counts counts;  // of the last run
    bool correct = true;
};

// `runs` runs of a copy through `chunks` equal chunks of 1000 floats, the arrays pinned or not,
// on a counting device that calls itself one of `backend`.
Counted count_runs(dualrt::PipelineMode mode, std::size_t chunks, bool pinned,
                   dualrt::PipelineTiming timing = dualrt::PipelineTiming::sampled, int runs = 3,
                   dualrt::Backend backend_kind = dualrt::Backend::opencl) {
    auto backend = std::make_shared<test::counting::Device>(backend_kind);
    const dualrt::Device device(backend);
    dualrt::PipelineOptions options;
    options.mode = mode;
    options.chunking = dualrt::Chunking::count(chunks);
    options.timing = timing;
    dualrt::Pipeline pipeline(device, options);
    const std::size_t n = chunks * 1000;
    std::vector<float> in(n), out(n);
    std::iota(in.begin(), in.end(), 1.0f);
    Counted counted;
    for (int r = 0; r < runs; ++r) {
        backend->counts = {};
        std::fill(out.begin(), out.end(), std::nanf(""));
        counted.report = pipeline.run(
            dualrt::inputs(dualrt::HostArray<const float>(in.data(), n, pinned)),
            dualrt::outputs(dualrt::HostArray<float>(out.data(), n, pinned)), [](auto& chunk) {
                chunk.queue.copy(std::get<0>(chunk.outputs), std::get<0>(chunk.inputs));
            });
        counted.correct = counted.correct && out == in;
    }
    counted.counts = backend->counts;
    return counted;
}

// The timed events of a run: none where it timed no chunk (the host clock reads its start and
// end), else the start, each queue's end and four points per timed chunk (chunk 0 is never in a
// sampled window).
std::size_t expected_records(const Counted& run, std::size_t ends) {
    const std::size_t timed = run.report.timed_chunks;
    if (timed == 0) return 0;
    return 1 + ends + 4 * timed;
}

}  // namespace

TEST_CASE("pipeline events: with lanes and pinned memory a chunk is its enqueues alone") {
    const std::size_t n = 64, lanes = 4;
    for (const auto backend : {dualrt::Backend::opencl, dualrt::Backend::cuda}) {
        CAPTURE(backend);
        const Counted run = count_runs(dualrt::PipelineMode::lanes, n, true,
                                       dualrt::PipelineTiming::sampled, 3, backend);
        INFO(run.report.summary());
        CHECK(run.correct);
        CHECK(run.counts.uploads == n);
        CHECK(run.counts.downloads == n);
        CHECK(run.counts.device_copies == n);
        CHECK(run.counts.queue_waits == 0);
        CHECK(run.counts.host_waits == 0);
        CHECK(run.counts.marks == 0);
        CHECK(run.counts.records == expected_records(run, lanes));
        // One submit per lane at its first chunk, so that an OpenCL queue is flushed; no poll.
        CHECK(run.counts.submits == lanes);
        CHECK(run.counts.polls == 0);
    }
}

TEST_CASE("pipeline events: a run that times no chunk records no event and reads its time on "
          "the host clock, on OpenCL on queues without timestamps; a timed run never") {
    for (const auto backend : {dualrt::Backend::opencl, dualrt::Backend::cuda}) {
        CAPTURE(backend);
        auto device_impl = std::make_shared<test::counting::Device>(backend);
        const dualrt::Device device(device_impl);
        dualrt::PipelineOptions options;
        options.chunking = dualrt::Chunking::count(32);
        dualrt::Pipeline pipeline(device, options);
        const std::size_t n = 32 * 1000;
        std::vector<float> in(n), out(n);
        std::iota(in.begin(), in.end(), 1.0f);
        std::size_t untimed_runs = 0, timed_runs = 0;
        for (int r = 0; r < 12; ++r) {
            CAPTURE(r);
            device_impl->counts = {};
            std::fill(out.begin(), out.end(), std::nanf(""));
            // Each run long enough on the host that sampled timing earns a window now and then,
            // but not every run: CUDA's windows cost only their events, OpenCL's a share of the
            // run too.
            const auto pause =
                std::chrono::microseconds(backend == dualrt::Backend::opencl ? 100 : 0);
            const auto report = pipeline.run(
                dualrt::inputs(dualrt::HostArray<const float>(in.data(), n, true)),
                dualrt::outputs(dualrt::HostArray<float>(out.data(), n, true)),
                [pause](auto& chunk) {
                    std::this_thread::sleep_for(pause);
                    chunk.queue.copy(std::get<0>(chunk.outputs), std::get<0>(chunk.inputs));
                });
            INFO(report.summary());
            CHECK(out == in);
            const auto& counts = device_impl->counts;
            const bool host_clock = test_contains(report.timing, "host clock");
            if (report.timed_chunks > 0) {
                CHECK(!host_clock);
                CHECK(counts.untimed_queue_copies == 0);
                CHECK(counts.records > 0);
                ++timed_runs;
                continue;
            }
            ++untimed_runs;
            CHECK(host_clock);
            // CUDA's events are timed one by one, so its queues are the same either way.
            CHECK(counts.untimed_queue_copies ==
                  (backend == dualrt::Backend::opencl ? 2 * 32 : 0));
            CHECK(counts.records == 0);
            // The run's time from the host clock: at least the compute's sleeps, one per lane.
            CHECK(report.measured_ms > 0.0);
            CHECK(report.measured_ms >= std::chrono::duration<double, std::milli>(pause).count());
            CHECK(report.measured_ms <= report.host_ms);
        }
        CHECK(untimed_runs > 0);
        CHECK(timed_runs > 0);  // the layout's first run, and windows paid for since
    }
}

TEST_CASE("pipeline events: several arrays per side cost no event between their copies") {
    // Two inputs and two outputs: a copy's event held while the next copy is enqueued would
    // make a real backend record it (an OpenCL marker of about 8 us on NVIDIA's driver).
    for (const bool pinned : {true, false}) {
        for (auto mode : {dualrt::PipelineMode::lanes, dualrt::PipelineMode::three_queues}) {
            CAPTURE(pinned);
            CAPTURE(std::string(dualrt::to_string(mode)));
            auto backend = std::make_shared<test::counting::Device>();
            const dualrt::Device device(backend);
            dualrt::PipelineOptions options;
            options.mode = mode;
            options.chunking = dualrt::Chunking::count(48);
            dualrt::Pipeline pipeline(device, options);
            const std::size_t n = 48 * 1000;
            std::vector<float> a(n), b(n), sum(n), difference(n);
            std::iota(a.begin(), a.end(), 1.0f);
            std::iota(b.begin(), b.end(), 5.0f);
            for (int run = 0; run < 2; ++run) {
                backend->counts = {};
                const auto report = pipeline.run(
                    dualrt::inputs(dualrt::HostArray<const float>(a.data(), n, pinned),
                                   dualrt::HostArray<const float>(b.data(), n, pinned)),
                    dualrt::outputs(dualrt::HostArray<float>(sum.data(), n, pinned),
                                    dualrt::HostArray<float>(difference.data(), n, pinned)),
                    [](auto& chunk) {
                        auto [da, db] = chunk.inputs;
                        auto [dsum, ddifference] = chunk.outputs;
                        chunk.queue.copy(dsum, da);
                        chunk.queue.copy(ddifference, db);
                    });
                INFO(report.summary());
                CHECK(sum == a);
                CHECK(difference == b);
                CHECK(backend->counts.uploads == 2 * 48);
                CHECK(backend->counts.downloads == 2 * 48);
                // Only events something waits for are held past the next enqueue on their
                // queue: with lanes from pinned memory none; staging and stage queues hold at
                // most the last copy of each side (for a refill, a copy-out or another queue),
                // never the first of two (which made 4 per chunk before: 192 here).
                if (pinned && mode == dualrt::PipelineMode::lanes)
                    CHECK(backend->counts.held_across == 0);
                CHECK(backend->counts.held_across <= 2 * 48);
            }
        }
    }
}

TEST_CASE("pipeline events: stage queues wait between stages, and for a reused buffer") {
    const std::size_t n = 64;
    for (auto mode : {dualrt::PipelineMode::two_queues, dualrt::PipelineMode::three_queues}) {
        CAPTURE(dualrt::to_string(mode));
        const Counted run = count_runs(mode, n, true);
        INFO(run.report.summary());
        CHECK(run.correct);
        const bool three = mode == dualrt::PipelineMode::three_queues;
        const std::size_t depth = three ? 4 : 2;
        // Compute after upload, download after compute; with three queues also an upload into
        // a buffer after the download that used it last (one copy queue keeps that order).
        CHECK(run.counts.queue_waits == 2 * n + (three ? n - depth : 0));
        CHECK(run.counts.host_waits == 0);
        CHECK(run.counts.polls == 0);
        // Timed events only at the start, the end and four per timed chunk; after each chunk's
        // compute, timed or not, one untimed mark for its download to wait on (a timed point
        // would hold it back on NVIDIA's OpenCL, whose timed markers wait for every queue).
        CHECK(run.counts.records == expected_records(run, 1));
        CHECK(run.counts.marks == n);
        // Every chunk timed: still a mark per compute, never a timed point to wait on.
        const Counted all_timed = count_runs(mode, n, true, dualrt::PipelineTiming::every_chunk);
        CHECK(all_timed.correct);
        CHECK(all_timed.report.timed_chunks == n);
        CHECK(all_timed.counts.records == 1 + 4 * n);  // the start is chunk 0's first point
        CHECK(all_timed.counts.marks == n);
    }
}

TEST_CASE("pipeline events: every chunk timed costs four timed events per chunk") {
    const std::size_t n = 20;
    const Counted run =
        count_runs(dualrt::PipelineMode::lanes, n, true, dualrt::PipelineTiming::every_chunk);
    CHECK(run.correct);
    CHECK(run.report.timed_chunks == n);
    CHECK(run.counts.records == 4 * n + 4);
    CHECK(run.counts.queue_waits == 0);
}

TEST_CASE("pipeline events: pageable memory waits only to reuse pinned staging buffers") {
    const std::size_t n = 40, lanes = 4, staging_slots = lanes + 2;
    const Counted run = count_runs(dualrt::PipelineMode::lanes, n, false);
    INFO(run.report.summary());
    CHECK(run.correct);
    CHECK(run.report.staged_input);
    CHECK(run.report.staged_output);
    CHECK(run.counts.queue_waits == 0);
    // A refill waits for the upload that last read its buffer; a copy-out for its download;
    // each on the copy's own event, in timed chunks too (never on a timed point).
    const std::size_t expected = (n - staging_slots) + n;
    CHECK(run.counts.host_waits == expected);
    const Counted all_timed =
        count_runs(dualrt::PipelineMode::lanes, n, false, dualrt::PipelineTiming::every_chunk);
    CHECK(all_timed.correct);
    CHECK(all_timed.report.timed_chunks == n);
    CHECK(all_timed.counts.host_waits == expected);
}

TEST_CASE("pipeline events: auto's first run of a layout times two windows, later runs what "
          "the timing credit pays for") {
    auto backend = std::make_shared<test::counting::Device>();
    const dualrt::Device device(backend);
    dualrt::Pipeline pipeline(device);  // lanes, automatic chunking, sampled timing
    const std::size_t n = std::size_t{8} << 20, lanes = 4;  // 32 MiB of floats each way
    std::vector<float> in(n), out(n);
    std::iota(in.begin(), in.end(), 1.0f);
    const auto run = [&] {
        backend->counts = {};
        std::fill(out.begin(), out.end(), std::nanf(""));
        const auto report = pipeline.run(
            dualrt::inputs(dualrt::HostArray<const float>(in.data(), n, true)),
            dualrt::outputs(dualrt::HostArray<float>(out.data(), n, true)), [](auto& chunk) {
                chunk.queue.copy(std::get<0>(chunk.outputs), std::get<0>(chunk.inputs));
            });
        CHECK(out == in);
        return report;
    };
    const auto first = run();
    INFO(first.chunking);
    // 32 MiB in equal chunks of a quarter, 1 to 16 MiB: 4 chunks, all of them in the first
    // run's two windows (3 in the middle, the last 4), four timed events each, and each lane's
    // end.
    CHECK(first.chunks == 4);
    for (std::size_t size : first.chunk_sizes) CHECK(size == first.chunk_sizes.front());
    CHECK(first.timed_chunks == 4);
    CHECK(backend->counts.records == lanes + 4 * 4);
    CHECK(backend->counts.queue_waits == 0);
    CHECK(backend->counts.marks == 0);
    for (int later = 0; later < 3; ++later) {
        const auto again = run();
        INFO(again.chunking);
        CHECK(again.chunk_sizes == first.chunk_sizes);
        // Only what the credit of earlier runs pays for: at most one window of three chunks,
        // the run's start and each lane's end, or nothing at all (the counting device calls
        // itself OpenCL: an untimed run goes on queues without timestamps).
        CHECK(again.timed_chunks <= 3);
        const std::size_t expected =
            again.timed_chunks == 0 ? 0 : 1 + lanes + 4 * again.timed_chunks;
        CHECK(backend->counts.records == expected);
    }
}

TEST_CASE("pipeline events: one timed event held up on the host does not make timing look "
          "dear") {
    // One record of each run takes 3 ms, as when the OS preempts the thread on a loaded
    // machine. The others take microseconds: the typical cost, a median, stays that small, so
    // the credit of a few runs pays for a window (a mean over the run would take many more).
    auto backend = std::make_shared<test::counting::Device>();
    backend->stall = {10, std::chrono::milliseconds(3)};
    const dualrt::Device device(backend);
    dualrt::Pipeline pipeline(device);
    const std::size_t n = std::size_t{8} << 20;
    std::vector<float> in(n, 2.0f), out(n);
    std::size_t timed_later = 0;
    for (int run = 0; run < 8; ++run) {
        backend->counts = {};
        const auto report = pipeline.run(
            dualrt::inputs(dualrt::HostArray<const float>(in.data(), n, true)),
            dualrt::outputs(dualrt::HostArray<float>(out.data(), n, true)), [](auto& chunk) {
                chunk.queue.copy(std::get<0>(chunk.outputs), std::get<0>(chunk.inputs));
            });
        INFO(report.chunking);
        CHECK(out == in);
        if (run > 0) timed_later += report.timed_chunks;
    }
    CHECK(timed_later > 0);
}

TEST_CASE("pipeline events: over several devices, a run on the fastest alone is that device's "
          "own run, as a Pipeline of it alone makes it") {
    auto first = std::make_shared<test::counting::Device>();
    auto second = std::make_shared<test::counting::Device>();
    dualrt::Pipeline pipeline({dualrt::Device(first), dualrt::Device(second)});
    const std::size_t n = std::size_t{8} << 20, lanes = 4;
    std::vector<float> in(n), out(n);
    std::iota(in.begin(), in.end(), 1.0f);
    // The first run (warming up) deals to both devices, and so does the second, which MixChoice
    // measures; the next goes to the fastest alone. The counting devices' events read 0 ms, so
    // neither is measured faster and the first listed is taken.
    constexpr int alone_run = 2;
    for (int run = 0; run <= alone_run; ++run) {
        CAPTURE(run);
        first->counts = {};
        second->counts = {};
        std::vector<std::size_t> seen_on;
        std::fill(out.begin(), out.end(), std::nanf(""));
        const auto report = pipeline.run(
            dualrt::inputs(dualrt::HostArray<const float>(in.data(), n, true)),
            dualrt::outputs(dualrt::HostArray<float>(out.data(), n, true)), [&](auto& chunk) {
                // Only the run alone calls from one thread; the others, from one per device.
                if (run == alone_run) seen_on.push_back(chunk.device_index);
                chunk.queue.copy(std::get<0>(chunk.outputs), std::get<0>(chunk.inputs));
            });
        INFO(report.summary());
        CHECK(out == in);
        REQUIRE(report.devices.size() == 2);
        if (run < alone_run) {
            // Every device may take chunks.
            CHECK(test_contains(report.chunking, "dealt to 2 devices"));
            continue;
        }
        CHECK(test_contains(report.chunking, "all on"));
        CHECK(report.devices[0].chunks == report.chunks);
        CHECK(report.devices[1].chunks == 0);
        CHECK(std::all_of(seen_on.begin(), seen_on.end(), [](std::size_t d) { return d == 0; }));
        CHECK(seen_on.size() == report.chunks);
        // Nothing asked of the other device.
        CHECK(second->counts.records == 0);
        CHECK(second->counts.uploads == 0);
        // The one-device schedule and timing: the start, each lane's end and four points per
        // timed chunk (windows of 3 or 4 chunks, not 3 of every 16 chunks of each device), or
        // none in a run that timed no chunk. Chunk 0's first point is the start: it is timed
        // where this is the device's first run timed alone (its share of the dealt runs may
        // have been too small to time, on a loaded machine), whose end window is all 4 chunks.
        const bool chunk_0_timed =
            std::any_of(report.timeline.spans.begin(), report.timeline.spans.end(),
                        [](const auto& span) { return span.name == "upload 0"; });
        const std::size_t expected =
            report.timed_chunks == 0
                ? 0
                : 1 + lanes + 4 * report.timed_chunks - (chunk_0_timed ? 1 : 0);
        CHECK(first->counts.records == expected);
        CHECK(report.timed_chunks <= 7);
        CHECK(!test_contains(report.timing, "of every 16"));
    }
}

namespace {

// Engine costs for the counting device, in ns per byte.
test::counting::Costs engine_costs(double upload, double download, double device) {
    test::counting::Costs costs;
    costs.upload_ns_per_byte = upload;
    costs.download_ns_per_byte = download;
    costs.device_ns_per_byte = device;
    return costs;
}

struct LaneRuns {
    std::vector<dualrt::PipelineReport> reports;
    bool correct = true;
};

// Elements of a float chunk large enough for one queue per stage.
constexpr std::size_t stage_queue_chunk = dualrt::detail::min_stage_queue_chunk_bytes / 4;

// `runs` runs of c = a + b (as two device copies: the compute) over 64 chunks of
// `chunk_elements` on a counting device of `kind` whose engines take `costs`, with lanes of
// `depth` (0: the library's 4), the mode `mode` (automatic: the library's).
LaneRuns lane_runs(const test::counting::Costs& costs, std::size_t depth, int runs,
                   dualrt::PipelineMode mode = dualrt::PipelineMode::automatic,
                   dualrt::Backend kind = dualrt::Backend::cuda,
                   std::size_t chunk_elements = stage_queue_chunk) {
    auto backend = std::make_shared<test::counting::Device>(kind);
    backend->costs = costs;
    const dualrt::Device device(backend);
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(64);
    options.depth = depth;
    options.mode = mode;
    dualrt::Pipeline pipeline(device, options);
    const std::size_t n = 64 * chunk_elements;
    std::vector<float> a(n), b(n), c(n), d(n);
    std::iota(a.begin(), a.end(), 1.0f);
    std::iota(b.begin(), b.end(), 7.0f);
    LaneRuns out;
    for (int run = 0; run < runs; ++run) {
        std::fill(c.begin(), c.end(), std::nanf(""));
        out.reports.push_back(pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c, d),
                                           [](auto& chunk) {
                                               auto [da, db] = chunk.inputs;
                                               auto [dc, dd] = chunk.outputs;
                                               chunk.queue.copy(dc, da);
                                               chunk.queue.copy(dd, db);
                                           }));
        out.correct = out.correct && c == a && d == b;
    }
    return out;
}

}  // namespace

TEST_CASE("pipeline events: a run takes two lanes where the timed stages show one engine busy "
          "most of a chunk, one queue per stage where they are balanced, and every lane in "
          "chunks too small for either") {
    // Uploads of two inputs at 2 ns a byte against downloads at 0.5 and a quick compute: the
    // upload engine is the busiest, at well over half of a chunk's stage time.
    const test::counting::Costs uploads_bound = engine_costs(2.0, 0.5, 0.1);
    const LaneRuns bound = lane_runs(uploads_bound, 0, 3);
    CHECK(bound.correct);
    // The first run times its windows on all four lanes; the next ones use two.
    INFO(bound.reports[1].summary());
    CHECK(bound.reports[0].queues == 4);
    CHECK(bound.reports[1].queues == 2);
    CHECK(bound.reports[1].depth == 2);
    CHECK(test_contains(bound.reports[1].chunking, "on 2 of 4 lanes"));
    CHECK(bound.reports[2].queues == 2);

    // Balanced stages on CUDA: the first run on four lanes, the next ones on three queues, one
    // per stage, with four chunks in flight.
    const LaneRuns even = lane_runs(engine_costs(1.0, 1.0, 1.0), 0, 3);
    CHECK(even.correct);
    CHECK(even.reports[0].mode == dualrt::PipelineMode::lanes);
    CHECK(even.reports[0].queues == 4);
    for (std::size_t run = 1; run < even.reports.size(); ++run) {
        INFO(even.reports[run].summary());
        CHECK(even.reports[run].mode == dualrt::PipelineMode::three_queues);
        CHECK(even.reports[run].queues == 3);
        CHECK(even.reports[run].depth == 4);
        CHECK(test_contains(even.reports[run].chunking,
                            "on one queue per stage instead of 4 lanes"));
    }
    // Chunks too small for stage queues to pay for their hand-offs (the host, not the device,
    // sets their pace) keep every lane instead, balanced or not: lanes add no host work, and each
    // one more lets the device overlap another chunk's command latencies.
    for (const auto& costs : {engine_costs(1.0, 1.0, 1.0), uploads_bound}) {
        for (dualrt::Backend kind : {dualrt::Backend::cuda, dualrt::Backend::opencl}) {
            CAPTURE(static_cast<int>(kind));
            const LaneRuns small = lane_runs(costs, 0, 3, dualrt::PipelineMode::automatic, kind,
                                             stage_queue_chunk / 64);
            CHECK(small.correct);
            for (const auto& report : small.reports) {
                INFO(report.summary());
                CHECK(report.mode == dualrt::PipelineMode::lanes);
                CHECK(report.queues == 4);
                CHECK(report.depth == 4);
                CHECK(!test_contains(report.chunking, "lanes ("));  // nothing to explain
            }
        }
    }
    // Lanes asked for stay lanes, and so do an OpenCL device's (each wait between its queues
    // would be a marker): balanced stages keep all four.
    for (const LaneRuns& kept :
         {lane_runs(engine_costs(1.0, 1.0, 1.0), 0, 3, dualrt::PipelineMode::lanes),
          lane_runs(engine_costs(1.0, 1.0, 1.0), 0, 3, dualrt::PipelineMode::automatic,
                    dualrt::Backend::opencl)}) {
        CHECK(kept.correct);
        for (const auto& report : kept.reports) {
            CHECK(report.mode == dualrt::PipelineMode::lanes);
            CHECK(report.queues == 4);
        }
    }

    // A depth the caller set is kept, whatever the stages say.
    const LaneRuns set = lane_runs(uploads_bound, 4, 3);
    CHECK(set.correct);
    for (const auto& report : set.reports) CHECK(report.queues == 4);
}

namespace {

// `runs` runs of a copy over 64 chunks on two counting devices of `kinds` whose engines take
// `costs`, every chunk timed, so that each device's first run decides its lanes however the
// chunks were dealt (sampled windows need a device to take 20 chunks or so). With fixed chunks
// the first two runs deal to both devices (MixChoice).
LaneRuns two_device_runs(const test::counting::Costs& costs,
                         const std::array<dualrt::Backend, 2>& kinds, int runs) {
    std::vector<std::shared_ptr<test::counting::Device>> backends;
    std::vector<dualrt::Device> devices;
    for (dualrt::Backend kind : kinds) {
        backends.push_back(std::make_shared<test::counting::Device>(kind));
        backends.back()->costs = costs;
        devices.emplace_back(backends.back());
    }
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(64);
    options.timing = dualrt::PipelineTiming::every_chunk;
    dualrt::Pipeline pipeline(devices, options);
    const std::size_t n = 64 * stage_queue_chunk;
    std::vector<float> a(n), c(n);
    std::iota(a.begin(), a.end(), 1.0f);
    LaneRuns out;
    for (int run = 0; run < runs; ++run) {
        std::fill(c.begin(), c.end(), std::nanf(""));
        out.reports.push_back(
            pipeline.run(dualrt::inputs(a), dualrt::outputs(c), [](auto& chunk) {
                // The counting devices' commands take no real time: without a little host
                // time per chunk, the calling thread's device would take every chunk before the
                // other device's thread has started.
                std::this_thread::sleep_for(std::chrono::microseconds(200));
                chunk.queue.copy(std::get<0>(chunk.outputs), std::get<0>(chunk.inputs));
            }));
        out.correct = out.correct && c == a;
    }
    return out;
}

}  // namespace

TEST_CASE("pipeline events: over several devices, each device takes the lanes its timed stages "
          "ask for, as it would alone") {
    // Two devices whose upload engines are the busiest, as the triad's on a GPU: the first run
    // on all four lanes of each; the second on the two their timed stages asked for, where a
    // device timed the three chunks a choice needs (on a loaded machine one device's thread may
    // start so late that the other takes nearly every chunk of the first run).
    const LaneRuns bound = two_device_runs(engine_costs(2.0, 0.5, 0.1),
                                           {dualrt::Backend::cuda, dualrt::Backend::cuda}, 2);
    CHECK(bound.correct);
    REQUIRE(bound.reports[0].devices.size() == 2);
    std::size_t second_queues = 0, second_depth = 0;
    for (const auto& device : bound.reports[0].devices) {
        const std::size_t lanes = device.chunks >= 3 ? 2 : 4;
        second_queues += lanes;
        second_depth = std::max(second_depth, lanes);
    }
    CHECK(second_queues <= 6);  // one device at least took half the chunks
    for (int run = 0; run < 2; ++run) {
        CAPTURE(run);
        const auto& report = bound.reports[run];
        INFO(report.summary());
        REQUIRE(report.devices.size() == 2);
        CHECK(test_contains(report.chunking, "dealt to 2 devices"));
        CHECK(report.queues == (run == 0 ? 8u : second_queues));
        CHECK(report.depth == (run == 0 ? 4u : second_depth));
        CHECK(test_contains(report.chunking, "on 2 of 4 lanes") == (run == 1));
    }

    // Balanced stages: the CUDA device takes three queues, the OpenCL one keeps its four lanes.
    const LaneRuns even = two_device_runs(engine_costs(1.0, 1.0, 1.0),
                                          {dualrt::Backend::cuda, dualrt::Backend::opencl}, 2);
    CHECK(even.correct);
    const auto& second = even.reports[1];
    INFO(second.summary());
    REQUIRE(second.devices.size() == 2);
    REQUIRE(even.reports[0].devices.size() == 2);
    const bool cuda_chose = even.reports[0].devices[0].chunks >= 3;
    CHECK(test_contains(second.chunking, "dealt to 2 devices"));
    CHECK(second.queues == (cuda_chose ? 3u : 4u) + 4u);
    CHECK(second.depth == 4u);
    CHECK(second.mode == dualrt::PipelineMode::lanes);  // the devices differ
    CHECK(test_contains(second.chunking, "on one queue per stage instead of 4 lanes") ==
          cuda_chose);
}
