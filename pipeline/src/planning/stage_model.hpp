// The stage model automatic chunking plans with: each stage of a chunk (the host's share, the
// upload, the compute, the download) costs a fixed time plus a time per element, fitted to the
// chunks a Pipeline has timed, run after run. Internal.
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
    // "" when the samples can tell the fixed cost from the per-element one and `model` (their
    // fit) follows them; else why not, in words: fewer than two size classes, sizes less than
    // min_size_spread apart, or class medians off the line by more than max_fit_error (only
    // checkable with three classes or more) of a yardstick: the time `chunk` gives for each
    // class's size, where given (the chunk's busiest stage: a plan follows that one, so a small
    // stage's misfit matters only against it), else the stage's own medians.
    std::string unusable(const StageModel& model, const StageModels* chunk = nullptr) const;

private:
    struct Sample {
        double elements;
        double ms;
    };
    // One point per size class: its median element count, median time and least time.
    struct Medians {
        std::vector<double> xs, ys, lows;
    };
    // Worked out again only after an add(): a run of automatic chunking fits its model three
    // times and checks it four (plan, report, the reasons it cannot plan), from the same samples.
    const Medians& class_medians() const;
    static constexpr std::size_t per_class = 8;
    std::map<int, std::deque<Sample>> by_class_;
    mutable Medians medians_;
    mutable bool medians_current_ = false;
};

// A fit needs its smallest and largest size classes at least this factor apart...
inline constexpr double min_size_spread = 2.0;
// ...and its class medians within this share of their mean (RMS) of the fitted line.
inline constexpr double max_fit_error = 0.3;

// The last plan the model made for a layout, kept while the model still predicts it as it did:
// planning plays dozens of candidate plans, and every run refines the model a little.
struct CachedPlan {
    std::size_t count = 0;    // elements the plan covers (0: none cached)
    std::size_t largest = 0;  // the largest chunk it was allowed (runs over one device or
                              // several, staged or not, allow different ones)
    std::vector<std::size_t> sizes;
    double predicted_ms = 0.0;
    double uniform_ms = 0.0;
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
    CachedPlan plan;
    // Lanes the next run uses (lane_choice.hpp): 2, or 0 for all; or, with stage_queues and
    // the mode left to the library, one queue per stage instead of lanes; with the busiest
    // stage's share of the timed stages that chose them.
    std::size_t lanes = 0;
    bool stage_queues = false;
    double busiest_share = 0.0;
    LaneEvidence lane_evidence;  // gathered towards the next choice
    // Whether the samples can tell fixed from per-element costs for every stage, the fits follow
    // them, and the copies grow with the chunk: automatic chunking plans from the model only
    // then.
    bool can_plan() const { return why_not().empty(); }
    // "" when can_plan(), else the first reason it cannot, in words ("upload: noisy ...").
    std::string why_not() const;
    StageModels fit() const;
};

// The layouts a Pipeline has run, by a key naming the arrays and the halo.
using LayoutModels = std::map<std::string, LayoutModel>;

}  // namespace dualrt::detail
