// A Pipeline's work on one device: its queues, chunk buffers, staging rings and stage models,
// and a run over them (plan, schedule, learn, report). A Pipeline of one device is one of these.
// A Pipeline over several keeps one per device: runs dealt to every device use its parts, and a
// run that goes to the fastest device alone is handed to that device's whole, so it runs
// exactly as a Pipeline of that device would (its timing windows, its chunk cap, its queues).
// Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include "automatic_chunking.hpp"
#include "chunk_buffers.hpp"
#include "chunk_scheduler.hpp"
#include "run_timing.hpp"
#include "stage_model.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

// Pinned staging buffers per staged array: two more than the chunks in flight, so the host's
// memcpy can run two chunks ahead of the device.
inline constexpr std::size_t extra_staging_slots = 2;

// The queues a mode (resolved, never automatic) needs for `depth` chunks in flight.
std::size_t queue_count(PipelineMode mode, std::size_t depth);

// The part of a run's plan request that its arrays and halo decide: the count, the row
// granule, the widest element and the halo.
PlanRequest plan_request(const RunArrays& arrays, const Halo& halo);

// What a run teaches a layout's model: the timed stages whose start is known and that ended in
// order, and every chunk's host time (`host_ms[i]` for `extents[i]`).
void learn_from_run(LayoutModel& model, const std::vector<ChunkExtent>& extents,
                    const ResolvedTiming& resolved, const std::vector<double>& host_ms);

class OneDevicePipeline {
public:
    // Makes the queues; `mode` and `depth` resolved and checked by the Pipeline.
    OneDevicePipeline(Device on, const PipelineOptions& chosen, PipelineMode resolved_mode,
                      std::size_t resolved_depth);

    // A run over `arrays` (from checked_arrays); `started` is when Pipeline::run began, for the
    // report's host_ms. Where `timing_out` is given, the run's resolved timing is left there (a
    // Pipeline over several devices puts its report together from it).
    PipelineReport run(const RunArrays& arrays, const Halo& halo, const ChunkFunction& compute,
                       std::chrono::steady_clock::time_point started,
                       ResolvedTiming* timing_out = nullptr);

    // Pinned staging buffers per staged array.
    std::size_t staging_slots() const { return depth + extra_staging_slots; }

    // Whether runs choose their lanes from their timed stages: with lanes, and the depth left to
    // the library; and whether they may take one queue per stage instead: the mode left to it too.
    bool adapts_lanes() const;
    bool adapts_mode() const;
    // How a run of `model`'s layout uses the queues: as the timed stages of the layout's last
    // informative runs asked for (lane_choice.hpp) where the library chooses: two lanes, all
    // of them, or three queues in their place; otherwise the mode and depth as set.
    struct LaneUse {
        PipelineMode mode = PipelineMode::lanes;  // the Pipeline's, or three_queues for lanes
        std::size_t in_flight = 0;                // chunks in flight: the lanes used, or depth
        std::size_t queues() const { return queue_count(mode, in_flight); }
    };
    LaneUse lane_use(const LayoutModel& model) const;
    // What a run's timed stages say about the layout's next lanes (nothing where the depth
    // was set by the caller, or the spans say little).
    void learn_lanes(LayoutModel& model, const ResolvedTiming& resolved) const;
    // The queues and device slots that `use` takes: every one stays allocated, for runs that
    // take them all again. After ensure_buffers, which may grow the slots.
    struct Lanes {
        PipelineQueues queues;
        DeviceSlots slots;
    };
    // `untimed`: the queues without timestamps (where the device has them, untimed_queues).
    Lanes lanes_of(const LaneUse& use, bool untimed = false) const;
    // For the report: how `use` differs from running on every lane, and why ("" where it does
    // not).
    std::string describe(const LaneUse& use, const LayoutModel& model) const;
    // Device slots for the largest of `sizes` (chunks of `arrays`, with the halo), and pinned
    // staging rings for the arrays this device stages; kept, and grown when a run needs more.
    void ensure_buffers(const RunArrays& arrays, const std::vector<std::size_t>& sizes,
                        const Halo& halo);

    // The parts, shared with the runs a Pipeline over several devices deals to every device.
    Device device;
    PipelineOptions options;
    PipelineMode mode;
    std::size_t depth;
    PipelineQueues queues;
    // The same queues made without timestamps, where a device's timed queues slow its work:
    // runs that time no chunk take these (OpenCL; empty elsewhere).
    PipelineQueues untimed_queues;
    DeviceSlots slots;  // kept between runs and grown when a run needs more
    StagingRings input_staging, output_staging;
    LayoutModels models;
    double record_ms;  // host cost of one timed event, as measured
};

}  // namespace dualrt::detail
