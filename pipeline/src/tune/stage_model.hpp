// What a Pipeline learns about a layout of arrays from its runs: the timed stages a report
// estimates the untimed ones from, and the evidence its lane choice is made from. Internal.
#pragma once

#include "run/stages.hpp"

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dualrt::detail {

// The latest timed durations of one stage, as times per element: a report estimates the stage of
// an untimed chunk as its elements at their median. The chunks of a run are of one size (but for
// the arrays' odd end and the halvings that end a run over several devices), so a time per
// element also carries the chunk's fixed cost at that size; the median, so that one stalled
// measurement does not move the estimate; the latest few, so that old runs fade.
class StageSamples {
public:
    void add(double elements, double ms);  // ignores nonsense (no elements, negative time)
    std::size_t size() const { return per_element_ms_.size(); }
    StageModel fit() const;  // no fixed cost; 0 per element without samples

private:
    static constexpr std::size_t kept = 32;
    std::deque<double> per_element_ms_;
    // fit() as of the last add(): every run's report asks for it, most runs add nothing.
    mutable std::optional<StageModel> fitted_;
};

// The stage times of whole chunks (all three device stages timed in order) that a layout's
// runs have gathered since its last lane choice (lane_choice.hpp).
struct LaneEvidence {
    double stage_ms[stage_count] = {};
    std::size_t chunks = 0;
};

// What a Pipeline has learned about one layout of arrays (element sizes, pinned or staged, halo).
struct LayoutModel {
    StageSamples samples[stage_count];
    std::size_t runs = 0;             // runs of this layout so far
    double timing_credit_ms = 0.0;    // host time sampled runs may still spend on timed events
    double last_run_ms = 0.0;         // the host time of the latest run
    // Lanes the next run uses (lane_choice.hpp): 2, or 0 for all; or, with stage_queues and
    // the mode left to the library, one queue per stage instead of lanes; with the busiest
    // stage's share of the timed stages that chose them.
    bool lanes_chosen = false;  // a choice has been made (until then: all lanes)
    std::size_t lanes = 0;
    bool stage_queues = false;
    double busiest_share = 0.0;
    LaneEvidence lane_evidence;  // gathered towards the next choice
    StageModels fit() const;
};

// The layouts a Pipeline has run, by a key naming the arrays and the halo.
using LayoutModels = std::map<std::string, LayoutModel>;

}  // namespace dualrt::detail
