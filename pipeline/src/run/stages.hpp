// The stages of a chunk and the time model of each: the vocabulary the run's timing, its report
// and the planner share. Internal.
#pragma once

#include <cstddef>

namespace dualrt::detail {

// The device stages of a chunk, in the order they happen.
enum Stage : std::size_t { upload_stage = 0, compute_stage = 1, download_stage = 2 };
inline constexpr std::size_t stage_count = 3;

// Time of one stage for a chunk of b elements: fixed_ms + per_element_ms * b.
struct StageModel {
    double fixed_ms = 0.0;
    double per_element_ms = 0.0;
    double at(double elements) const { return fixed_ms + per_element_ms * elements; }
};

struct StageModels {
    StageModel stage[stage_count];
};

}  // namespace dualrt::detail
