#include "one_device_pipeline.hpp"

#include "backend/backend_access.hpp"
#include "run/run_checks.hpp"
#include "run/run_report.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <utility>

namespace dualrt::detail {
namespace {

// Whether runs that time nothing go on queues without timestamps: on OpenCL, where a queue
// keeps them for every command once made so (CUDA's events are timed one by one).
bool has_untimed_queues(const Device& device) {
    return device.info().backend == Backend::opencl;
}

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
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
    run_storage_.input_bytes.clear();
    run_storage_.output_bytes.clear();
    run_storage_.input_staged.clear();
    run_storage_.output_staged.clear();
    for (const auto& array : arrays.inputs) {
        run_storage_.input_bytes.push_back(input_elements * array.elem_size);
        run_storage_.input_staged.push_back(array.pinned ? 0 : run_storage_.input_bytes.back());
    }
    for (const auto& array : arrays.outputs) {
        run_storage_.output_bytes.push_back(largest * array.elem_size);
        run_storage_.output_staged.push_back(array.pinned ? 0
                                                          : run_storage_.output_bytes.back());
    }
    // The kept lanes view the slots' buffers: they go first, so that the old buffers are freed
    // before new ones are made.
    if (!slots.hold(depth, run_storage_.input_bytes, run_storage_.output_bytes, options.in_place))
        kept_lanes_.reset();
    slots.ensure(device, depth, run_storage_.input_bytes, run_storage_.output_bytes,
                 options.in_place);
    input_staging.ensure(device, staging_slots(), run_storage_.input_staged);
    output_staging.ensure(device, staging_slots(), run_storage_.output_staged);
}

OneDevicePipeline::KeptLanes& OneDevicePipeline::kept_lanes(const QueueUse& use, bool untimed) {
    if (!kept_lanes_ || kept_lanes_->use.mode != use.mode ||
        kept_lanes_->use.in_flight != use.in_flight || kept_lanes_->untimed != untimed) {
        kept_lanes_.reset();
        kept_lanes_ = std::make_unique<KeptLanes>(
            KeptLanes{use, untimed, lanes_of(use, untimed), std::nullopt});
        Lanes& lanes = kept_lanes_->lanes;
        kept_lanes_->scheduler.emplace(lanes.queues, lanes.slots, input_staging, output_staging,
                                       staging_slots());
    }
    return *kept_lanes_;
}

PipelineReport OneDevicePipeline::run(const RunArrays& checked, const Halo& halo,
                                      const ChunkFunction& compute,
                                      std::chrono::steady_clock::time_point started,
                                      ResolvedTiming* timing_out) {
    const char* op = "Pipeline::run";
    // A HostBuffer of another OpenCL device is registered with this one, or staged.
    RunArrays& arrays = run_storage_.arrays;
    arrays = checked;
    mark_as_seen_by(arrays, *backend_of(device));

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

    RunPlan& plan = run_storage_.plan;
    planner.plan(arrays, halo, op, plan);
    std::vector<ChunkExtent>& extents = run_storage_.extents;
    extents_of(plan.sizes, extents);
    ensure_buffers(arrays, plan.sizes, halo);
    facts.mode = plan.queues.mode;
    facts.queues = plan.queues.queues();
    facts.depth = plan.queues.in_flight;
    facts.device_bytes = slots.device_bytes();
    facts.staged_input = input_staging.any();
    facts.staged_output = output_staging.any();

    // A run on the host clock reads no event back, so all it learns and reports but its end is
    // known once its commands are enqueued: it concludes while the device works, and only its
    // end is filled in after the wait. Concluding after the wait cost about 10 us of host time
    // that a hand-written pipeline does not spend (a 16 MiB stream in four chunks, H200 host).
    // A run on the host clock times no chunk, so its timing needs no list of them.
    RunTiming timing(plan.host_clock ? std::vector<bool>() : plan.timed, plan.queues.mode,
                     plan.host_clock);
    ResolvedTiming resolved;
    std::optional<PipelineReport> report;
    const auto conclude_now = [&] {
        facts.chunking = plan.how;
        report = conclude(arrays, extents, timing, facts, resolved);
    };
    // Two references: std::function holds them without allocating.
    const std::function<void()> conclude_early = [&conclude_now, &plan] {
        if (plan.host_clock) conclude_now();
    };
    std::string replay_how;
    if (plan.replay) {
        replay_how = replay(arrays, extents, plan.queues, compute, timing, conclude_early);
    } else {
        ChunkScheduler& scheduler = *kept_lanes(plan.queues, plan.host_clock).scheduler;
        scheduler.use(arrays, timing, compute);
        scheduler.run(extents, conclude_early);
        if (options.replay) replay_how = "not replayed: " + plan.no_replay;
    }
    timing.ended();
    if (report) {
        resolved.measured_ms = timing.host_ms();
        report->measured_ms = resolved.measured_ms;
    } else {
        conclude_now();
    }
    planner.learn_run_time(arrays, extents.size(), ms_since(started));
    report->replayed = plan.replay;
    report->replay = std::move(replay_how);
    report->host_ms = ms_since(started);
    if (timing_out != nullptr) *timing_out = resolved;
    return std::move(*report);
}

PipelineReport OneDevicePipeline::conclude(const RunArrays& arrays,
                                           const std::vector<ChunkExtent>& extents,
                                           RunTiming& timing, const RunFacts& facts,
                                           ResolvedTiming& resolved) {
    // A timed event costs the host its record, and then its reading and its release: the
    // budget of later runs' windows counts all three (on PoCL the reading and release of a 4-chunk
    // run's 14 events took about as long as recording them).
    const auto reading = std::chrono::steady_clock::now();
    resolved = timing.resolve(extents);
    timing.release_events();
    RunRecord record{extents, resolved};
    if (const std::size_t records = timing.records(); records > 0)
        record.typical_record_ms =
            timing.typical_record_ms() + ms_since(reading) / static_cast<double>(records);
    planner.learn(arrays, record);
    const Planner::Fitted fitted = planner.fit(arrays);
    return make_report(facts, extents, resolved, fitted.models, fitted.device_samples);
}

std::string OneDevicePipeline::replay(const RunArrays& arrays,
                                      const std::vector<ChunkExtent>& extents,
                                      const QueueUse& use, const ChunkFunction& compute,
                                      RunTiming& timing, const std::function<void()>& meanwhile) {
    KeptLanes& kept = kept_lanes(use, /*untimed=*/true);
    Lanes& used = kept.lanes;
    // The scheduler records or digests the run; it times nothing itself.
    RunTiming untimed({}, use.mode, true);
    ChunkScheduler& scheduler = *kept.scheduler;
    scheduler.use(arrays, untimed, compute);
    const ReplayLayout layout = replay_layout(arrays, extents, used.queues, used.slots);
    Queue& first = used.queues.queues.front();
    try {
        // The run's last replay: `meanwhile` runs while it does.
        const auto replay_now = [&] {
            timing.started();
            Event end = recordings.replay(first);
            meanwhile();
            end.wait();
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
            if (!ahead) {
                replay_now();
            } else {
                meanwhile();
                ahead_end.wait();
            }
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
