// Choosing a run's chunks: the fixed cuts of Chunking::count and Chunking::elements, and
// automatic chunking, which plans from the layout's stage model once it has one and otherwise
// runs a first plan whose timed chunks teach it. Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include "planning/plan_simulation.hpp"
#include "planning/stage_model.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

// What the chunk sizes depend on besides the chunking.
struct PlanRequest {
    std::size_t count = 0;         // elements in every array
    std::size_t granule = 1;       // chunk boundaries fall on multiples of it (whole rows)
    std::size_t widest_elem = 1;   // the largest element size of any array, in bytes
    std::size_t halo_elements = 0; // halo before + after each chunk
    // Whether the run can afford a learning run's timed windows (learning_affordable,
    // run_timing.hpp); if not, and the model cannot plan, automatic chunking takes the
    // safe plan at once.
    bool can_learn = true;
    // Whether some array is pageable host memory, whose chunks pass through pinned staging
    // buffers: such plans keep their chunks smaller (largest_staged_chunk_bytes).
    bool staged = false;
    // The devices the chunks are dealt to: with several, chunks stay small enough that each
    // device gets many (min_chunks_per_device).
    std::size_t devices = 1;
};

struct PlanDecision {
    std::vector<std::size_t> sizes;
    std::string how;            // for PipelineReport::chunking
    double predicted_ms = 0.0;  // the model's prediction (0: not planned by the model)
    bool learning = false;      // a first plan, run to teach the model
};

// The chunk sizes of a run. Fixed chunking needs per-chunk counts that are whole rows;
// `operation` names the call in the errors. Automatic chunking reuses the layout's cached plan
// while the model predicts it within 1% of what it did, else plans again and caches that.
// The smallest chunk, in elements, whose fixed costs (the host's share and the busiest engine's
// set-up) are at most half of what the busiest engine spends on its elements: smaller chunks
// pay too much for being a chunk. 0 when the model has no fixed or no per-element cost.
std::size_t fixed_cost_floor(const StageModels& models, PipelineMode mode);

PlanDecision choose_plan(const Chunking& chunking, const PlanRequest& request,
                         LayoutModel& model, const ScheduleShape& shape, const char* operation);

}  // namespace dualrt::detail
