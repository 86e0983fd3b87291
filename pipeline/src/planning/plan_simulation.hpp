// What automatic chunking predicts a plan costs, and the plan it picks: the stage model of
// stage_model.hpp played through the schedule, chunk by chunk. Internal.
#pragma once

#include <dualrt/pipeline_report.hpp>

#include "planning/stage_model.hpp"

#include <cstddef>
#include <vector>

namespace dualrt::detail {

// The schedule a plan runs on: which queue holds which stage, and what waits for what.
struct ScheduleShape {
    PipelineMode mode = PipelineMode::lanes;  // lanes, two_queues or three_queues
    std::size_t depth = 4;                    // chunks in flight (lanes: queues)
    std::size_t staging_slots = 0;            // pinned buffers per staged input (0: none staged)
};

// The predicted time from the first upload's start to the last download's end of chunks of
// `sizes` elements. Each stage is a resource used in chunk order (the host enqueues; each copy
// direction and the compute units run one chunk at a time), and the schedule's waits hold
// chunks back: a chunk's device buffers are free once the chunk `depth` earlier has downloaded,
// a staged input's pinned buffer once the chunk `staging_slots` earlier has uploaded, and with
// two queues a download waits behind the next chunk's upload on the shared copy queue.
double simulate_ms(const std::vector<std::size_t>& sizes, const StageModels& models,
                   const ScheduleShape& shape);

// The bounds automatic chunking picks within (in elements).
struct PlanLimits {
    std::size_t granule = 1;      // chunk sizes are multiples of it (whole rows)
    std::size_t smallest = 1;     // no chunk smaller (but for the arrays' odd end)
    std::size_t largest = 1;      // no chunk larger
    std::size_t max_chunks = 4096;
};

struct PlanChoice {
    std::vector<std::size_t> sizes;
    double predicted_ms = 0.0;
    double uniform_ms = 0.0;  // the best plan of equal chunks, for the report
};

// The plan with the least predicted time: the best count of equal chunks first, then shapes
// with chunks doubling up to that size at the start and halving at the end, taken only when
// the model predicts a clear gain.
PlanChoice best_plan(std::size_t count, const PlanLimits& limits, const StageModels& models,
                     const ScheduleShape& shape);

}  // namespace dualrt::detail
