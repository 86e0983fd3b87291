// What a Pipeline run asks of the backend, counted on an in-process backend (no device): with
// lanes and pinned memory a chunk is its enqueues and nothing else; with stage queues, the waits
// between stages; timed events only at the run's start and end and on the timed chunks.
#include "pipeline_counting_backend.hpp"

#include <dualrt/dualrt.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

namespace {

struct Counted {
    dualrt::PipelineReport report;
    test::counting::Counts counts;  // of the last run
    bool correct = true;
};

// `runs` runs of a copy through `chunks` equal chunks of 1000 floats, the arrays pinned or not.
Counted count_runs(dualrt::PipelineMode mode, std::size_t chunks, bool pinned,
                   dualrt::PipelineTiming timing = dualrt::PipelineTiming::sampled, int runs = 3) {
    auto backend = std::make_shared<test::counting::Device>();
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

}  // namespace

TEST_CASE("pipeline events: with lanes and pinned memory a chunk is its enqueues alone") {
    const std::size_t n = 64, lanes = 4;
    const Counted run = count_runs(dualrt::PipelineMode::lanes, n, true);
    INFO(run.report.summary());
    CHECK(run.correct);
    CHECK(run.counts.uploads == n);
    CHECK(run.counts.downloads == n);
    CHECK(run.counts.device_copies == n);
    CHECK(run.counts.queue_waits == 0);
    CHECK(run.counts.host_waits == 0);
    CHECK(run.counts.marks == 0);
    // The start, each lane's end, and four points per timed chunk (none is chunk 0 here).
    CHECK(run.counts.records == 1 + lanes + 4 * run.report.timed_chunks);
    // One poll per lane at its first chunk, so that an OpenCL queue is flushed.
    CHECK(run.counts.polls == lanes);
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
        // Timed events only at the start, the end and four per timed chunk; after each untimed
        // chunk's compute one untimed mark for its download to wait on, no timed event.
        const std::size_t timed = run.report.timed_chunks;
        CHECK(run.counts.records == 2 + 4 * timed);
        CHECK(run.counts.marks == n - timed);
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
    // A refill waits for the upload that last read its buffer; a copy-out for its download.
    CHECK(run.counts.host_waits == (n - staging_slots) + n);
}
