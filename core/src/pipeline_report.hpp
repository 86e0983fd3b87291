// Turning a pipeline run's events into numbers: the stage model of "auto" and the report.
// Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include "pipeline_plan.hpp"
#include "pipeline_schedule.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

struct FittedStages {
    StageModel stages[3];  // upload, compute, download
    std::size_t small = 0, large = 0;
    std::string describe() const;
};

// Fits each stage's model to the calibration chunks: `per_size` chunks of `small` elements,
// then `per_size` of `large`. The first chunk of each size is left out (it runs without the
// other stages beside it, so it is not what the pipeline's steady state sees). Waits for them.
FittedStages fit_stages(const std::vector<ChunkRecord>& records, std::size_t small,
                        std::size_t large, std::size_t per_size);

// Stage sums, serial estimate, bound, measured time and the timeline of every chunk in
// `records` (all complete).
PipelineReport make_report(const std::vector<ChunkRecord>& records, PipelineMode mode);

}  // namespace dualrt::detail
