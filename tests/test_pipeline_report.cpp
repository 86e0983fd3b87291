// The Pipeline's report claims only what it measured, on an in-process backend whose engines take
// simulated time: a speedup or efficiency only from stages timed in the same run and never above
// 100%, estimates labelled as such, "not measured" where there is nothing to estimate from, and
// run() re-entered is an error that leaves the outer run whole.
#include "pipeline_counting_backend.hpp"

#include <dualrt/dualrt.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A copy through `chunks` chunks of 1000 floats on `pipeline`, checked.
dualrt::PipelineReport copy_run(dualrt::Pipeline& pipeline, std::size_t chunks) {
    const std::size_t n = chunks * 1000;
    std::vector<float> in(n), out(n, std::nanf(""));
    std::iota(in.begin(), in.end(), 1.0f);
    auto report = pipeline.run(
        dualrt::inputs(dualrt::HostArray<const float>(in.data(), n, true)),
        dualrt::outputs(dualrt::HostArray<float>(out.data(), n, true)), [](auto& chunk) {
            chunk.queue.copy(std::get<0>(chunk.outputs), std::get<0>(chunk.inputs));
        });
    REQUIRE(out == in);
    return report;
}

// The figures a report gives, checked against what its stage_times allows.
void check_honest(const dualrt::PipelineReport& r) {
    INFO(r.summary());
    switch (r.stage_times) {
    case dualrt::StageTimes::measured:
        REQUIRE(r.efficiency());
        CHECK(*r.efficiency() <= 1.0);
        CHECK(r.bound_ms <= r.measured_ms * (1.0 + 1e-9));
        CHECK(contains(r.summary(), "% of the bound"));
        break;
    case dualrt::StageTimes::estimated:
        CHECK(!r.efficiency());
        CHECK(!r.speedup());
        CHECK(contains(r.summary(), "stages (estimated)"));
        CHECK(!contains(r.summary(), "% of the bound"));
        break;
    case dualrt::StageTimes::not_measured:
        CHECK(!r.efficiency());
        CHECK(!r.speedup());
        CHECK(r.upload_ms == 0.0);
        CHECK(r.serial_ms == 0.0);
        CHECK(contains(r.summary(), "stages: not measured"));
        CHECK(!contains(r.summary(), "stages: upload"));
        break;
    }
}

}  // namespace

TEST_CASE("pipeline report: estimates far below the stages' real times claim no efficiency") {
    auto device = std::make_shared<test::counting::Device>();
    device->costs = {0.01, 0.01, 0.01};
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(64);
    dualrt::Pipeline pipeline(dualrt::Device(device), options);
    std::size_t estimated = 0;
    for (int run = 0; run < 12; ++run) {
        CAPTURE(run);
        // The engines get 20x slower after the model learnt them: estimates are far too low.
        if (run == 4) device->costs = {0.2, 0.2, 0.2};
        const auto r = copy_run(pipeline, 64);
        check_honest(r);
        estimated += r.stage_times == dualrt::StageTimes::estimated ? 1 : 0;
    }
    CHECK(estimated > 0);  // sampled timing leaves most runs' chunks untimed
}

TEST_CASE("pipeline report: every chunk timed gives a measured efficiency of at most 100% in "
          "every mode") {
    for (const auto mode : {dualrt::PipelineMode::two_queues, dualrt::PipelineMode::three_queues,
                            dualrt::PipelineMode::lanes}) {
        CAPTURE(dualrt::to_string(mode));
        auto device = std::make_shared<test::counting::Device>();
        device->costs = {0.05, 0.05, 0.2};
        dualrt::PipelineOptions options;
        options.mode = mode;
        options.chunking = dualrt::Chunking::count(16);
        options.timing = dualrt::PipelineTiming::every_chunk;
        dualrt::Pipeline pipeline(dualrt::Device(device), options);
        const auto r = copy_run(pipeline, 16);
        CHECK(r.stage_times == dualrt::StageTimes::measured);
        check_honest(r);
        // The compute engine is the busiest, and it was busy for most of the run.
        CHECK(*r.efficiency() > 0.5);
    }
}

TEST_CASE("pipeline report: a run with stages untimed and nothing to estimate them from says "
          "\"not measured\"") {
    auto device = std::make_shared<test::counting::Device>();
    // The compute takes no simulated time, so the timed chunks teach the model nothing of it:
    // the untimed chunks' compute cannot be estimated.
    device->costs = {0.05, 0.05, 0.0};
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(64);
    dualrt::Pipeline pipeline(dualrt::Device(device), options);
    std::size_t not_measured = 0;
    for (int run = 0; run < 4; ++run) {
        const auto r = copy_run(pipeline, 64);
        check_honest(r);
        if (r.stage_times != dualrt::StageTimes::not_measured) continue;
        ++not_measured;
        CHECK(contains(r.timing, "with nothing to estimate them from"));
    }
    CHECK(not_measured > 0);
}

TEST_CASE("pipeline report: over several devices, a device whose stages were not measured "
          "says so, and the run's efficiency stays within 100%") {
    auto first = std::make_shared<test::counting::Device>();
    auto second = std::make_shared<test::counting::Device>();
    first->costs = {0.02, 0.02, 0.02};
    second->costs = {0.02, 0.02, 0.5};
    for (const auto timing :
         {dualrt::PipelineTiming::sampled, dualrt::PipelineTiming::every_chunk}) {
        CAPTURE(dualrt::to_string(timing));
        dualrt::PipelineOptions options;
        options.chunking = dualrt::Chunking::count(4);
        options.timing = timing;
        dualrt::Pipeline pipeline({dualrt::Device(first), dualrt::Device(second)}, options);
        for (int run = 0; run < 3; ++run) {
            CAPTURE(run);
            const auto r = copy_run(pipeline, 4);
            check_honest(r);
            REQUIRE(r.devices.size() == 2);
            for (const auto& row : r.devices) {
                if (row.chunks == 0 || row.stage_times != dualrt::StageTimes::not_measured)
                    continue;
                CHECK(row.upload_ms == 0.0);
                CHECK(contains(r.summary(), "stages not measured"));
            }
            if (timing == dualrt::PipelineTiming::every_chunk)
                CHECK(r.stage_times == dualrt::StageTimes::measured);
        }
    }
}

TEST_CASE("pipeline report: run() re-entered from its compute function throws, and the outer "
          "run completes with every element right") {
    auto device = std::make_shared<test::counting::Device>();
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(8);
    dualrt::Pipeline pipeline(dualrt::Device(device), options);
    const std::size_t n = 8 * 1000;
    std::vector<float> in(n), out(n, std::nanf("")), inner(n);
    std::iota(in.begin(), in.end(), 1.0f);
    std::size_t refused = 0;
    pipeline.run(
        dualrt::inputs(dualrt::HostArray<const float>(in.data(), n, true)),
        dualrt::outputs(dualrt::HostArray<float>(out.data(), n, true)), [&](auto& chunk) {
            try {
                pipeline.run(in, inner, [](auto&) {});
            } catch (const dualrt::Error& e) {
                CHECK(e.errc() == dualrt::Errc::invalid_argument);
                CHECK(contains(e.what(), "already running"));
                ++refused;
            }
            chunk.queue.copy(std::get<0>(chunk.outputs), std::get<0>(chunk.inputs));
        });
    CHECK(refused == 8);
    CHECK(out == in);
    // And usable again afterwards.
    CHECK(copy_run(pipeline, 8).chunks == 8);
}

TEST_CASE("pipeline: chunk work on another queue of the device is an error unless chunk.queue "
          "waits for it") {
    auto backend = std::make_shared<test::counting::Device>();
    const dualrt::Device device(backend);
    dualrt::Queue other = device.create_queue();
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(4);
    dualrt::Pipeline pipeline(device, options);
    const std::size_t n = 4 * 1000;
    std::vector<float> in(n), out(n);
    std::iota(in.begin(), in.end(), 1.0f);
    // How the copy on the other queue is ordered before the chunk's download: not at all, by
    // chunk.queue waiting for its event, by the host waiting for it, by a blocking copy.
    enum Order { none, queue_waits, host_waits, blocking };
    for (const Order order : {none, queue_waits, host_waits, blocking}) {
        CAPTURE(order);
        std::fill(out.begin(), out.end(), std::nanf(""));
        const auto run = [&] {
            pipeline.run(in, out, [&](auto& chunk) {
                if (order == blocking) {
                    other.copy(chunk.output, chunk.input, dualrt::Sync::blocking);
                    return;
                }
                const dualrt::Event copied = other.copy(chunk.output, chunk.input);
                if (order == queue_waits) chunk.queue.wait(other.record());
                if (order == host_waits) copied.wait();
            });
        };
        if (order != none) {
            run();
            CHECK(out == in);
            continue;
        }
        try {
            run();
            FAIL("expected a dualrt::Error");
        } catch (const dualrt::Error& e) {
            CHECK(e.errc() == dualrt::Errc::invalid_argument);
            CHECK(contains(e.what(), "a copy or fill on another queue"));
            CHECK(contains(e.what(), "chunk.queue.wait"));
        }
    }
    // The Pipeline's own queues and a later run are unharmed.
    CHECK(copy_run(pipeline, 4).chunks == 4);
}
