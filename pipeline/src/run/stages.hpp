// The stages of a chunk and the time model of each: the vocabulary the run's timing, its report
// and the planner share. Internal.
#pragma once

#include <cstddef>
#include <string>

namespace dualrt::detail {

// The stages of a chunk, in the order they happen. `host` is the calling thread's own work for
// the chunk (enqueues, the compute function, staging memcpys), measured with the host clock.
enum Stage : std::size_t {
    host_stage = 0,
    upload_stage = 1,
    compute_stage = 2,
    download_stage = 3
};
inline constexpr std::size_t stage_count = 4;
const char* stage_name(std::size_t stage);

// Time of one stage for a chunk of b elements: fixed_ms + per_element_ms * b.
struct StageModel {
    double fixed_ms = 0.0;
    double per_element_ms = 0.0;
    double at(double elements) const { return fixed_ms + per_element_ms * elements; }
};

struct StageModels {
    StageModel stage[stage_count];
    std::string describe() const;  // "host 12.0 us + 0.001 ns/element, upload ..."
    // The busiest device stage (upload, compute or download) for a chunk of b elements.
    double busiest_at(double elements) const;
};

}  // namespace dualrt::detail
