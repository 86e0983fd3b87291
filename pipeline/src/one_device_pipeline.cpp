#include "one_device_pipeline.hpp"

#include "backend/backend_access.hpp"
#include "run/run_checks.hpp"
#include "run/run_report.hpp"

#include <algorithm>

namespace dualrt::detail {
namespace {

// Whether runs that time nothing go on queues without timestamps: on OpenCL, where a queue
// keeps them for every command once made so (CUDA's events are timed one by one).
bool has_untimed_queues(const Device& device) {
    return device.info().backend == Backend::opencl;
}

}  // namespace

OneDevicePipeline::OneDevicePipeline(Device on, const PipelineOptions& chosen,
                                     PipelineMode resolved_mode, std::size_t resolved_depth)
    : device(std::move(on)),
      options(chosen),
      mode(resolved_mode),
      depth(resolved_depth),
      planner(chosen, resolved_mode, resolved_depth, device.info().backend,
              has_untimed_queues(device), device.info().recording) {
    queues.mode = mode;
    for (std::size_t q = 0; q < queue_count(mode, depth); ++q)
        queues.queues.push_back(device.create_queue());
    if (!has_untimed_queues(device)) return;
    untimed_queues.mode = mode;
    QueueOptions untimed;
    untimed.timing = false;
    for (std::size_t q = 0; q < queue_count(mode, depth); ++q)
        untimed_queues.queues.push_back(device.create_queue(untimed));
}

OneDevicePipeline::Lanes OneDevicePipeline::lanes_of(const QueueUse& use, bool untimed) const {
    const PipelineQueues& all = untimed && !untimed_queues.queues.empty() ? untimed_queues : queues;
    if (use.mode != mode) {  // three queues in place of lanes: the first three lanes' queues
        PipelineQueues stages = all.first(3);
        stages.mode = use.mode;
        return Lanes{std::move(stages), slots};
    }
    if (use.in_flight >= depth) return Lanes{all, slots};
    return Lanes{all.first(use.in_flight), slots.first(use.in_flight)};
}

void OneDevicePipeline::ensure_buffers(const RunArrays& arrays,
                                       const std::vector<std::size_t>& sizes, const Halo& halo) {
    const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
    const std::size_t input_elements =
        std::min(arrays.count, largest + halo.before() + halo.after());
    std::vector<std::size_t> input_bytes, output_bytes, input_staged, output_staged;
    for (const auto& array : arrays.inputs) {
        input_bytes.push_back(input_elements * array.elem_size);
        input_staged.push_back(array.pinned ? 0 : input_bytes.back());
    }
    for (const auto& array : arrays.outputs) {
        output_bytes.push_back(largest * array.elem_size);
        output_staged.push_back(array.pinned ? 0 : output_bytes.back());
    }
    slots.ensure(device, depth, input_bytes, output_bytes, options.in_place);
    input_staging.ensure(device, staging_slots(), input_staged);
    output_staging.ensure(device, staging_slots(), output_staged);
}

PipelineReport OneDevicePipeline::run(const RunArrays& checked, const Halo& halo,
                                      const ChunkFunction& compute,
                                      std::chrono::steady_clock::time_point started,
                                      ResolvedTiming* timing_out) {
    const char* op = "Pipeline::run";
    // A HostBuffer of another OpenCL device is registered with this one, or staged.
    const RunArrays arrays = as_seen_by(checked, *backend_of(device));

    RunFacts facts;
    facts.mode = mode;
    facts.queues = queues.queues.size();
    facts.depth = depth;
    facts.input_arrays = arrays.inputs.size();
    facts.output_arrays = arrays.outputs.size();
    if (arrays.count == 0) {
        PipelineReport empty = make_report(facts, {}, {}, {}, 0);
        empty.chunking = "empty arrays: nothing to run";
        return empty;
    }

    const RunPlan plan = planner.plan(arrays, halo, op);
    const std::vector<ChunkExtent> extents = extents_of(plan.sizes);
    ensure_buffers(arrays, plan.sizes, halo);

    RunTiming timing(plan.timed, plan.queues.mode, plan.host_clock);
    std::string replay_how;
    if (plan.replay) {
        replay_how = replay(arrays, extents, plan.queues, compute, timing);
    } else {
        Lanes used = lanes_of(plan.queues, plan.host_clock);
        ChunkScheduler scheduler(used.queues, used.slots, input_staging, output_staging,
                                 staging_slots(), arrays, timing, compute);
        scheduler.run(extents);
        if (options.replay) replay_how = "not replayed: " + plan.no_replay;
    }
    timing.ended();

    // A timed event costs the host its record, and then its reading and its release: the
    // budget of later runs' windows counts all three (on PoCL the reading and release of a 4-chunk
    // run's 14 events took about as long as recording them).
    const auto reading = std::chrono::steady_clock::now();
    const ResolvedTiming resolved = timing.resolve(extents);
    timing.release_events();
    const double read_ms = std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - reading)
                               .count();
    RunRecord record{extents, resolved};
    if (const std::size_t records = timing.records(); records > 0)
        record.typical_record_ms =
            timing.typical_record_ms() + read_ms / static_cast<double>(records);
    record.run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                              started)
                        .count();
    planner.learn(arrays, record);

    facts.mode = plan.queues.mode;
    facts.queues = plan.queues.queues();
    facts.depth = plan.queues.in_flight;
    facts.device_bytes = slots.device_bytes();
    facts.staged_input = input_staging.any();
    facts.staged_output = output_staging.any();
    facts.chunking = plan.how;
    const Planner::Fitted fitted = planner.fit(arrays);
    PipelineReport report =
        make_report(facts, extents, resolved, fitted.models, fitted.device_samples);
    report.replayed = plan.replay;
    report.replay = std::move(replay_how);
    report.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                               started)
                         .count();
    if (timing_out != nullptr) *timing_out = resolved;
    return report;
}

std::string OneDevicePipeline::replay(const RunArrays& arrays,
                                      const std::vector<ChunkExtent>& extents,
                                      const QueueUse& use, const ChunkFunction& compute,
                                      RunTiming& timing) {
    Lanes used = lanes_of(use, /*untimed=*/true);
    // The scheduler records or digests the run; it times nothing itself.
    RunTiming untimed(std::vector<bool>(extents.size(), false), use.mode, true);
    ChunkScheduler scheduler(used.queues, used.slots, input_staging, output_staging,
                             staging_slots(), arrays, untimed, compute);
    const ReplayLayout layout = replay_layout(arrays, extents, used.queues, used.slots);
    Queue& first = used.queues.queues.front();
    try {
        const auto replay_now = [&] {
            timing.started();
            recordings.replay(first).wait();
        };
        if (!recordings.holds(layout)) {
            recordings.record(used.queues, scheduler, extents, layout);
            replay_now();
            return "recorded, and replayed";
        }
        // The compute function is called for every chunk to compare its commands with the
        // recording, about a microsecond of host time a chunk. Where a replay with other
        // commands would change nothing that the run does not write again (the recorded
        // commands write only the chunks' buffers, and the outputs are not inputs), the replay
        // starts first and the comparison runs beside it: a mismatch then costs a second replay,
        // not a wrong result.
        const bool ahead = recordings.confined() && !outputs_overlap_inputs(arrays);
        Event ahead_end;
        if (ahead) {
            timing.started();
            ahead_end = recordings.replay(first);
        }
        const std::string nth = std::to_string(recordings.replays() + (ahead ? 0 : 1));
        if (recordings.matches(used.queues, scheduler, extents)) {
            if (ahead) ahead_end.wait();
            else replay_now();
            return "replayed (run " + nth + " of its recording)";
        }
        // A scalar or a view of the compute function's changed: record the run anew.
        if (ahead) ahead_end.wait();
        recordings.record(used.queues, scheduler, extents, layout);
        replay_now();
        return std::string("recorded anew (the compute function enqueued other commands than "
                           "the recording held), ") +
               (recordings.updated_in_place() ? "updated in place" : "built anew") +
               ", and replayed";
    } catch (...) {
        used.queues.drain_quietly();
        throw;
    }
}

}  // namespace dualrt::detail
