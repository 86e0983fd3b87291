// What a Pipeline learns about a layout of arrays from its runs: a model of each stage of a chunk
// (the host's share, the upload, the compute, the download: a fixed time plus a time per element,
// fitted to the chunks it has timed, run after run), from which a report estimates the stages of
// the chunks it did not time, and the evidence its lane choice is made from. Internal.
#pragma once

#include "run/median.hpp"
#include "run/stages.hpp"

#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace dualrt::detail {

// The samples of one stage: (chunk elements, ms). Kept per size class (a power of two of the
// element count), the latest few of each, so that a fit always sees every size the pipeline has
// timed and not just the latest run's, and old runs fade.
class StageSamples {
public:
    void add(double elements, double ms);
    std::size_t size() const;          // samples held
    std::size_t size_classes() const;  // distinct size classes among them
    // The least-squares line through each size class's median (with `floor`, its least time),
    // with fixed and per-element costs kept non-negative. With a single size class, all of the
    // time is per element.
    StageModel fit(bool floor = false) const;

private:
    struct Sample {
        double elements;
        double ms;
    };
    // One point per size class: its median element count, median time and least time.
    struct Medians {
        std::vector<double> xs, ys, lows;
    };
    // Worked out again only after an add(): a run fits its model more than once (its report,
    // and over several devices each device's).
    const Medians& class_medians() const;
    static constexpr std::size_t per_class = 8;
    std::map<int, std::deque<Sample>> by_class_;
    mutable Medians medians_;
    mutable bool medians_current_ = false;
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
    std::size_t lanes = 0;
    bool stage_queues = false;
    double busiest_share = 0.0;
    LaneEvidence lane_evidence;  // gathered towards the next choice
    StageModels fit() const;
};

// The layouts a Pipeline has run, by a key naming the arrays and the halo.
using LayoutModels = std::map<std::string, LayoutModel>;

}  // namespace dualrt::detail
