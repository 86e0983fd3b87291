#include "pipeline_lane_trial.hpp"

#include <cstdio>

namespace dualrt::detail {

std::size_t LaneTrial::choose(std::size_t suggested, std::size_t all) const {
    if (all <= 2) return suggested;
    const std::size_t mine = slot(suggested, all), other = 1 - mine;
    const auto lanes_of = [&](std::size_t s) { return s == 0 ? all : std::size_t{2}; };
    if (runs_[mine] == 0) return suggested;
    if (runs_[other] < other_runs) return lanes_of(other);
    return best_[mine] <= best_[other] ? suggested : lanes_of(other);
}

void LaneTrial::record(std::size_t lanes, std::size_t all, std::size_t chunks,
                       double ms_per_element) {
    if (all <= 2 || !(ms_per_element > 0.0)) return;
    if (chunks != chunks_) {
        chunks_ = chunks;
        best_[0] = best_[1] = 0.0;
        runs_[0] = runs_[1] = 0;
    }
    const std::size_t s = slot(lanes, all);
    if (runs_[s] == 0 || ms_per_element < best_[s]) best_[s] = ms_per_element;
    ++runs_[s];
}

std::string LaneTrial::why(std::size_t chosen, std::size_t suggested, std::size_t all) const {
    if (all <= 2) return "";
    const std::size_t mine = slot(suggested, all), other = 1 - mine;
    if (runs_[mine] == 0) return "";
    char text[200];
    if (runs_[other] < other_runs) {
        if (chosen == suggested) return "";
        std::snprintf(text, sizeof text, "trying %zu lanes against the %zu the stages suggest",
                      chosen, suggested);
        return text;
    }
    std::snprintf(text, sizeof text,
                  "%zu lanes ran faster: %.3f against %.3f ns per element at best (%zu lanes)",
                  chosen, 1e6 * best_[slot(chosen, all)], 1e6 * best_[1 - slot(chosen, all)],
                  chosen == all ? std::size_t{2} : all);
    return text;
}

}  // namespace dualrt::detail
