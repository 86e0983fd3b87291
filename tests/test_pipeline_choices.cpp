// What a Pipeline chooses from its runs, without a device: over several devices, every device
// or the fastest alone (MixChoice), and how many lanes a layout's runs use (choose_lanes).
#include "multi/chunk_dealer.hpp"
#include "multi/mix_choice.hpp"
#include "run/run_timing.hpp"
#include "tune/lane_choice.hpp"
#include "tune/stage_model.hpp"

#include <doctest/doctest.h>

#include <utility>

using namespace dualrt::detail;

namespace {

// A choice after its warm-up run and each way measured twice in turns, every device first.
MixChoice measured_twice(double together, double alone) {
    MixChoice mix;
    mix.learn(false, 1.0);  // warming up
    for (int turn = 0; turn < 2; ++turn) {
        mix.learn(false, together);
        mix.learn(true, alone);
    }
    return mix;
}

}  // namespace

TEST_CASE("pipeline choices: over several devices, the choice between every device and the fastest "
          "alone leaves out the first run alone") {
    MixChoice mix;
    CHECK_FALSE(mix.fastest_alone());
    mix.learn(false, 1000.0);  // warming up: not counted
    CHECK(mix.together() == 0.0);
    for (int turn = 0; turn < 2; ++turn) {
        CHECK_FALSE(mix.fastest_alone());
        mix.learn(false, 100.0);
        CHECK(mix.fastest_alone());
        mix.learn(true, 80.0);
    }
    CHECK_FALSE(mix.fastest_alone());  // together was faster
}

TEST_CASE("pipeline choices: one unlucky run of each way does not decide between every device and "
          "the fastest alone") {
    MixChoice mix;
    mix.learn(false, 1.0);  // warming up
    // Together 90, alone 100 elements/ms; the first run alone stalled (pageable staging).
    mix.learn(false, 90.0);
    mix.learn(true, 70.0);
    CHECK_FALSE(mix.fastest_alone());  // each way a second time before choosing
    mix.learn(false, 90.0);
    CHECK(mix.fastest_alone());
    mix.learn(true, 100.0);
    mix.learn(true, 100.0);
    // Medians 90 and 100: alone.
    CHECK(mix.fastest_alone());
}

TEST_CASE("pipeline choices: one run of each way settles on the fastest alone where every device "
          "lost by more than 20%, never on every device") {
    const auto after_one_each = [](double together, double alone) {
        MixChoice mix;
        mix.learn(false, 1.0);  // warming up
        mix.learn(false, together);
        CHECK(mix.measuring());
        CHECK(mix.fastest_alone());  // the fastest alone next, to compare
        mix.learn(true, alone);
        return mix;
    };
    // Every device at 75 elements/ms against 100 alone: settled, alone.
    const MixChoice clear = after_one_each(75.0, 100.0);
    CHECK_FALSE(clear.measuring());
    CHECK(clear.fastest_alone());
    // 85 against 100 is within a run's swing: every device runs a second time first.
    const MixChoice close = after_one_each(85.0, 100.0);
    CHECK(close.measuring());
    CHECK_FALSE(close.fastest_alone());
    // Every device far ahead is still measured twice before it is chosen.
    const MixChoice ahead = after_one_each(130.0, 100.0);
    CHECK(ahead.measuring());
    CHECK_FALSE(ahead.fastest_alone());
}

TEST_CASE("pipeline choices: every device is chosen only where it beats the fastest alone by more "
          "than 2%") {
    const auto chooses_alone = [](double together, double alone) {
        return measured_twice(together, alone).fastest_alone();
    };
    CHECK(chooses_alone(101.5, 100.0));
    CHECK_FALSE(chooses_alone(103.0, 100.0));
    CHECK(chooses_alone(90.0, 100.0));
}

TEST_CASE("pipeline choices: the way not taken over several devices is measured again every 10 "
          "runs, more seldom the more it loses") {
    // Runs alone, out of `runs` after both ways were measured twice, where together reaches
    // `together` elements/ms and alone `alone`.
    const auto alone_runs = [](double together, double alone, int runs) {
        MixChoice mix = measured_twice(together, alone);
        int alone_count = 0;
        for (int r = 0; r < runs; ++r) {
            const bool way = mix.fastest_alone();
            alone_count += way ? 1 : 0;
            mix.learn(way, way ? alone : together);
        }
        return alone_count;
    };
    // Close: every 10th run rechecks.
    CHECK(alone_runs(100.0, 95.0, 200) == 20);
    // Together 1.65x alone (two H200s): a recheck every 65 runs, about 1% of the time.
    CHECK(alone_runs(165.0, 100.0, 200) == 3);
    // The other way round, alone 4x together: together is measured every 300 runs.
    const int together_runs = 200 - alone_runs(25.0, 100.0, 200);
    CHECK(together_runs <= 1);
}

namespace {

// The lane choice of one run alone, with nothing gathered before it.
LaneChoice choose_once(const ResolvedTiming& timing) {
    LaneEvidence fresh;
    return choose_lanes(timing, fresh);
}

// Timed stages of `chunks` consecutive chunks, each stage of the given ms, all timed in order.
ResolvedTiming timed_stages(std::size_t chunks, double upload, double compute, double download,
                            bool in_order = true) {
    ResolvedTiming timing;
    for (std::size_t chunk = 0; chunk < chunks; ++chunk)
        for (const auto& [stage, ms] : {std::pair{upload_stage, upload},
                                        {compute_stage, compute}, {download_stage, download}})
            timing.durations.push_back(StageDuration{chunk, stage, ms, true, in_order});
    return timing;
}

}  // namespace

TEST_CASE("pipeline choices: two lanes where one stage takes most of a chunk's time, all of them "
          "where the stages are balanced") {
    // c = a + s*b: two inputs up, one down, a short compute: the upload is 2/3 of the stages.
    const LaneChoice stream = choose_once(timed_stages(5, 0.038, 0.004, 0.019));
    CHECK(stream.known);
    CHECK(stream.lanes == 2);
    CHECK_FALSE(stream.stage_queues);
    CHECK(stream.busiest_share == doctest::Approx(0.038 / 0.061));
    // A long compute is the busiest stage just as well.
    CHECK(choose_once(timed_stages(5, 0.01, 0.05, 0.01)).lanes == 2);
    // Balanced stages need three lanes or more: all of them, or one queue per stage.
    const LaneChoice balanced = choose_once(timed_stages(5, 0.02, 0.02, 0.02));
    CHECK(balanced.known);
    CHECK(balanced.lanes == 0);
    CHECK(balanced.stage_queues);
    // Just under the threshold (the busiest at 55%): the same.
    const LaneChoice under = choose_once(timed_stages(5, 0.055, 0.025, 0.02));
    CHECK(under.lanes == 0);
    CHECK(under.stage_queues);
    // Too few chunks timed whole, or spans of a device that runs its queues side by side: not
    // known, so the runs keep what they had.
    CHECK_FALSE(choose_once(timed_stages(2, 0.038, 0.004, 0.019)).known);
    CHECK_FALSE(choose_once(timed_stages(5, 0.038, 0.004, 0.019, false)).known);
    ResolvedTiming partial = timed_stages(5, 0.038, 0.004, 0.019);
    partial.durations.erase(partial.durations.begin() + 1);  // chunk 0 without its compute
    CHECK(choose_once(partial).known);  // four whole chunks still
    CHECK(describe_lanes(2, 4, 0.62).find("on 2 of 4 lanes") == 0);

    // Over a layout's runs: runs that each time two whole chunks (one window of three) choose
    // together, and the next choice starts from nothing.
    LaneEvidence evidence;
    CHECK_FALSE(choose_lanes(timed_stages(2, 0.038, 0.004, 0.019), evidence).known);
    CHECK(evidence.chunks == 2);
    const LaneChoice second = choose_lanes(timed_stages(2, 0.040, 0.004, 0.019), evidence);
    CHECK(second.known);
    CHECK(second.lanes == 2);
    CHECK(second.busiest_share == doctest::Approx(0.078 / 0.124));
    CHECK(evidence.chunks == 0);
    // Spans of a device that runs its queues side by side add nothing, however many runs.
    for (int run = 0; run < 5; ++run)
        CHECK_FALSE(choose_lanes(timed_stages(5, 0.038, 0.004, 0.019, false), evidence).known);
    CHECK(evidence.chunks == 0);
}
