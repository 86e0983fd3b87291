// Turning a pipeline run's timed events, and the stage model its untimed chunks are estimated
// from, into its report. Internal.
#pragma once

#include <dualrt/pipeline_report.hpp>

#include "run/chunk_extents.hpp"
#include "run/run_timing.hpp"
#include "run/stages.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

// What the run used, as the report states it.
struct RunFacts {
    PipelineMode mode = PipelineMode::lanes;
    std::size_t queues = 0, depth = 0, device_bytes = 0, input_arrays = 0, output_arrays = 0;
    bool staged_input = false, staged_output = false;
    std::string chunking;
};

// The report of a run over `extents`. Stage times are the exactly timed durations where there
// are some, and the model's estimates (`models`, fitted to `model_samples` samples) elsewhere.
PipelineReport make_report(const RunFacts& facts, const std::vector<ChunkExtent>& extents,
                           const ResolvedTiming& timing, const StageModels& models,
                           std::size_t model_samples);

}  // namespace dualrt::detail
