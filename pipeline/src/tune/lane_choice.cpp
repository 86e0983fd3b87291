#include "tune/lane_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace dualrt::detail {
namespace {

// Two lanes suffice from a busiest stage of half the three stages' time up; 15% above that,
// so that a jitter of the other stages does not leave the busiest engine waiting.
constexpr double two_lane_share = 0.575;
// Chunks with all three stages timed in order that a choice needs.
constexpr std::size_t chunks_to_choose = 3;

}  // namespace

LaneChoice choose_lanes(const ResolvedTiming& timing, LaneEvidence& evidence) {
    // Per chunk, its stages' timed spans; only chunks with all three count.
    struct Stages {
        double ms[stage_count] = {};
        std::size_t timed = 0;
    };
    std::map<std::size_t, Stages> chunks;
    for (const StageDuration& duration : timing.durations) {
        if (!duration.known_start || !duration.in_order) continue;
        Stages& stages = chunks[duration.chunk];
        stages.ms[duration.stage] += duration.ms;
        ++stages.timed;
    }
    for (const auto& [chunk, stages] : chunks) {
        if (stages.timed != 3) continue;
        for (std::size_t stage : {upload_stage, compute_stage, download_stage})
            evidence.stage_ms[stage] += stages.ms[stage];
        ++evidence.chunks;
    }
    LaneChoice choice;
    const double* total = evidence.stage_ms;
    const double sum = total[upload_stage] + total[compute_stage] + total[download_stage];
    if (evidence.chunks < chunks_to_choose || !(sum > 0.0)) return choice;
    choice.known = true;
    choice.busiest_share =
        std::max({total[upload_stage], total[compute_stage], total[download_stage]}) / sum;
    choice.lanes = choice.busiest_share >= two_lane_share ? 2 : 0;
    choice.stage_queues = choice.lanes == 0;
    evidence = LaneEvidence();
    return choice;
}

std::string describe_lanes(std::size_t used, std::size_t lanes, double busiest_share) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "on %zu of %zu lanes (the busiest stage took %.0f%% of a chunk's stage time "
                  "in the timed chunks before: two lanes keep its engine busy)",
                  used, lanes, 100.0 * busiest_share);
    return text;
}

std::string describe_stage_queues(std::size_t lanes, double busiest_share) {
    char text[192];
    std::snprintf(text, sizeof text,
                  "on one queue per stage instead of %zu lanes (the busiest stage took %.0f%% of "
                  "a chunk's stage time in the timed chunks before: balanced stages, each engine "
                  "taking its chunks in order)",
                  lanes, 100.0 * busiest_share);
    return text;
}

std::string describe_replayed_stage_queues(std::size_t lanes) {
    return "on one queue per stage instead of " + std::to_string(lanes) +
           " lanes (a replay: its hand-offs between queues cost the host nothing, and each "
           "engine takes its chunks in order)";
}

}  // namespace dualrt::detail
