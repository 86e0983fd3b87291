// A Pipeline's work on one device: its queues, chunk buffers and staging rings, its planner, and
// a run over them: the planner plans, the chunk scheduler carries the plan out, the planner
// learns from what was measured, and the run is reported. A Pipeline of one device is one of
// these. A Pipeline over several keeps one per device: runs dealt to every device use its parts,
// and a run that goes to the fastest device alone is handed to that device's whole, so it runs
// exactly as a Pipeline of that device would (its timing windows, its chunk cap, its queues).
// Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include "run/chunk_buffers.hpp"
#include "run/chunk_scheduler.hpp"
#include "run/run_recordings.hpp"
#include "run/run_report.hpp"
#include "run/run_timing.hpp"
#include "tune/planner.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace dualrt::detail {

// Pinned staging buffers per staged array: two more than the chunks in flight, so the host's
// memcpy can run two chunks ahead of the device.
inline constexpr std::size_t extra_staging_slots = 2;

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
    // The queues and device slots that `use` takes: every one stays allocated, for runs that
    // take them all again. After ensure_buffers, which may grow the slots.
    struct Lanes {
        PipelineQueues queues;
        DeviceSlots slots;
    };
    // `untimed`: the queues without timestamps (where the device has them, untimed_queues).
    Lanes lanes_of(const QueueUse& use, bool untimed = false) const;
    // Device slots for the largest of `sizes` (chunks of `arrays`, with the halo), and pinned
    // staging rings for the arrays this device stages; kept, and grown when a run needs more.
    void ensure_buffers(const RunArrays& arrays, const std::vector<std::size_t>& sizes,
                        const Halo& halo);
    // The run of `extents` on `use`'s lanes as a replay of the recording of its layout:
    // recorded first where the recording holds another layout or the compute function's
    // commands differ from it (by digest). Times the replay on the host clock into `timing`;
    // calls `meanwhile` once, while the last replay runs. Returns what it did, for
    // PipelineReport::replay.
    std::string replay(const RunArrays& arrays, const std::vector<ChunkExtent>& extents,
                       const QueueUse& use, const ChunkFunction& compute, RunTiming& timing,
                       const std::function<void()>& meanwhile);

    // What a run learns from `timing` (resolved into `resolved`) and its report, all but the
    // parts that come after it: its end where it runs on the host clock and has not ended yet,
    // its replay, its host time.
    PipelineReport conclude(const RunArrays& arrays, const std::vector<ChunkExtent>& extents,
                            RunTiming& timing, const RunFacts& facts, ResolvedTiming& resolved);

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
    Planner planner;
    RunRecordings recordings;  // PipelineOptions::replay

private:
    // The lanes of the latest run on this device alone, and a scheduler over them: kept until a
    // run takes other lanes or the slots are made anew (ensure_buffers drops them first).
    struct KeptLanes {
        QueueUse use;
        bool untimed = false;
        Lanes lanes;
        std::optional<ChunkScheduler> scheduler;  // over `lanes`, which stay where they are
    };
    KeptLanes& kept_lanes(const QueueUse& use, bool untimed);
    std::unique_ptr<KeptLanes> kept_lanes_;
    // What a run works in before its first command, kept from run to run: a run over a layout
    // it ran before allocates none of it. The host's caches are mostly cold from the program's
    // own work between runs, and each allocation and object touched then delays the device's
    // start.
    struct RunStorage {
        RunArrays arrays;  // the run's arrays as this device sees them
        RunPlan plan;
        std::vector<ChunkExtent> extents;
        std::vector<std::size_t> input_bytes, output_bytes, input_staged, output_staged;
    } run_storage_;
};

}  // namespace dualrt::detail
