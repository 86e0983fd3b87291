// Whether two lanes or all of them run a layout faster, measured. The timed stages suggest a
// count (pipeline_lanes.hpp), but the share of one stage is a poor guide where chunks are few or
// a stage is short: c = a + s*b over 16 MiB in four chunks ran faster on two lanes on CUDA while
// its stages asked for four (GPU run C6). So a layout's runs try the count not suggested too, and
// keep whichever ran faster for the same plan. Internal.
#pragma once

#include <cstddef>
#include <string>

namespace dualrt::detail {

class LaneTrial {
public:
    // The lanes of the next run, for the plan of the runs recorded so far: `suggested` (2, or
    // `all`) until it has run once, then the other count twice, then whichever ran faster (the
    // suggestion on a tie). `all` of 2 or fewer leaves nothing to try.
    std::size_t choose(std::size_t suggested, std::size_t all) const;
    // A run of a plan of `chunks` chunks on `lanes` of `all` took `ms_per_element` (its measured
    // time over its elements). Another chunk count than the runs' before starts the trial again.
    void record(std::size_t lanes, std::size_t all, std::size_t chunks, double ms_per_element);
    // Why `chosen` lanes (of choose()) run, for the report: "" when they are the suggestion and
    // no trial is decided.
    std::string why(std::size_t chosen, std::size_t suggested, std::size_t all) const;

private:
    static constexpr std::size_t other_runs = 2;  // runs of the count not suggested
    std::size_t chunks_ = 0;                      // the plan the figures below are of
    // [0]: all lanes, [1]: two; the fastest run's time per element (0: none) and how many ran.
    double best_[2] = {0.0, 0.0};
    std::size_t runs_[2] = {0, 0};
    // The slot of `lanes` lanes of `all`.
    static std::size_t slot(std::size_t lanes, std::size_t all) { return lanes >= all ? 0 : 1; }
};

}  // namespace dualrt::detail
