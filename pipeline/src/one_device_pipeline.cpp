#include "one_device_pipeline.hpp"

#include "automatic_chunking.hpp"
#include "lane_choice.hpp"
#include "run_checks.hpp"
#include "run_report.hpp"
#include "runtime/backend_access.hpp"

#include <algorithm>

namespace dualrt::detail {
namespace {

// Sampled timing may spend about this share of the runs' host time on timed events, and save up
// at most this many ms of it.
constexpr double timing_budget = 0.02;
constexpr double max_timing_credit_ms = 5.0;
// The first guess of a timed event's host cost, before one has been measured.
constexpr double first_record_ms = 0.005;
// How much slower a run goes on queues that keep timestamps: NVIDIA's OpenCL ran the native
// stencil up to 4.6% slower (2.5% on average) on queues made with CL_QUEUE_PROFILING_ENABLE than
// on plain ones, at 1 to 16 MiB chunks (H200). A timed window is charged this share
// of a run as well.
constexpr double timed_queue_share = 0.03;

// Whether runs that time nothing go on queues without timestamps: on OpenCL, where a queue
// keeps them for every command once made so (CUDA's events are timed one by one).
bool has_untimed_queues(const Device& device) {
    return device.info().backend == Backend::opencl;
}

}  // namespace

std::size_t queue_count(PipelineMode mode, std::size_t depth) {
    switch (mode) {
    case PipelineMode::two_queues: return 2;
    case PipelineMode::three_queues: return 3;
    default: return depth;
    }
}

OneDevicePipeline::OneDevicePipeline(Device on, const PipelineOptions& chosen,
                                     PipelineMode resolved_mode, std::size_t resolved_depth)
    : device(std::move(on)),
      options(chosen),
      mode(resolved_mode),
      depth(resolved_depth),
      record_ms(first_record_ms) {
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

PlanRequest plan_request(const RunArrays& arrays, const Halo& halo) {
    std::size_t widest = 1;
    for (const auto* side : {&arrays.inputs, &arrays.outputs})
        for (const auto& array : *side) widest = std::max(widest, array.elem_size);
    return PlanRequest{arrays.count, halo.row_width(), widest, halo.before() + halo.after()};
}

void learn_from_run(LayoutModel& model, const std::vector<ChunkExtent>& extents,
                    const ResolvedTiming& resolved, const std::vector<double>& host_ms) {
    for (const auto& duration : resolved.durations)
        if (duration.known_start && duration.in_order)
            model.samples[duration.stage].add(static_cast<double>(extents[duration.chunk].count),
                                              duration.ms);
    for (std::size_t i = 0; i < extents.size(); ++i)
        model.samples[host_stage].add(static_cast<double>(extents[i].count), host_ms[i]);
}

bool OneDevicePipeline::adapts_lanes() const {
    return mode == PipelineMode::lanes && options.depth == 0;  // a depth set is kept as set
}

bool OneDevicePipeline::adapts_mode() const {
    // Lanes asked for stay lanes. On OpenCL each of the three queues' waits per chunk is a
    // marker (about 8 us of host time on NVIDIA's driver), and three queues gained nothing
    // there: `overlap` auto 0.964 of native against 0.966 on lanes, and `stencil` 17.6-18.1 ms
    // against 16.0-16.2 on lanes, where the compute's spans then read too noisy to plan from
    // (H200). CUDA gained: 0.994 against 0.960, and 14.2-16.1 ms
    // against 15.0-16.4.
    return adapts_lanes() && options.mode == PipelineMode::automatic &&
           device.info().backend == Backend::cuda;
}

OneDevicePipeline::LaneUse OneDevicePipeline::lane_use(const LayoutModel& model) const {
    if (adapts_mode() && model.stage_queues) return LaneUse{PipelineMode::three_queues, depth};
    const bool fewer = adapts_lanes() && model.lanes >= 2 && model.lanes < depth;
    return LaneUse{mode, fewer ? model.lanes : depth};
}

void OneDevicePipeline::learn_lanes(LayoutModel& model, const ResolvedTiming& resolved) const {
    if (!adapts_lanes()) return;
    const LaneChoice next = choose_lanes(resolved, model.lane_evidence);
    if (!next.known) return;
    model.lanes = next.lanes;
    model.stage_queues = next.stage_queues;
    model.busiest_share = next.busiest_share;
}

OneDevicePipeline::Lanes OneDevicePipeline::lanes_of(const LaneUse& use, bool untimed) const {
    const PipelineQueues& all = untimed && !untimed_queues.queues.empty() ? untimed_queues : queues;
    if (use.mode != mode) {  // three queues in place of lanes: the first three lanes' queues
        PipelineQueues stages = all.first(3);
        stages.mode = use.mode;
        return Lanes{std::move(stages), slots};
    }
    if (use.in_flight >= depth) return Lanes{all, slots};
    return Lanes{all.first(use.in_flight), slots.first(use.in_flight)};
}

std::string OneDevicePipeline::describe(const LaneUse& use, const LayoutModel& model) const {
    if (use.mode != mode) return describe_stage_queues(depth, model.busiest_share);
    if (use.in_flight < depth) return describe_lanes(use.in_flight, depth, model.busiest_share);
    return "";
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
    const RunArrays arrays = as_seen_by(checked, *detail::backend_of(device));

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

    // The plan.
    LayoutModel& model = models[layout_key(arrays)];
    PlanRequest request = plan_request(arrays, halo);
    std::size_t bytes = 0;  // over the bus, for what learning may cost
    for (const auto* side : {&arrays.inputs, &arrays.outputs})
        for (const auto& array : *side) bytes += arrays.count * array.elem_size;
    request.can_learn = options.timing == PipelineTiming::every_chunk ||
                        learning_affordable(bytes, record_ms);
    const LaneUse use = lane_use(model);
    const std::string lanes_used = describe(use, model);  // before this run's learning
    facts.mode = use.mode;
    facts.queues = use.queues();
    facts.depth = use.in_flight;
    ScheduleShape shape{use.mode, use.in_flight, 0};
    for (const auto& array : arrays.inputs)
        if (!array.pinned) shape.staging_slots = staging_slots();
    request.staged = any_staged(arrays);
    const PlanDecision plan = choose_plan(options.chunking, request, model, shape, op);
    if (options.chunking.kind() != Chunking::Kind::automatic)
        check_halo_fits(halo, plan.sizes, op);
    const std::vector<ChunkExtent> extents = extents_of(plan.sizes);

    ensure_buffers(arrays, plan.sizes, halo);

    // The run.
    // A layout's first run with fixed chunks times windows too: the report estimates untimed
    // chunks' stages from the model. (Automatic chunking decides that in its plan: a short
    // run takes the safe plan, untimed.)
    const bool first_of_layout = model.samples[upload_stage].size() == 0;
    const bool fixed = options.chunking.kind() != Chunking::Kind::automatic;
    const bool untimed_possible = !untimed_queues.queues.empty();
    std::vector<bool> timed = choose_timed_chunks(
        extents.size(), options.timing, plan.learning || (first_of_layout && fixed), model.runs,
        record_ms, model.timing_credit_ms,
        untimed_possible ? timed_queue_share * model.last_run_ms : 0.0);
    // A run that times no chunk reads its start and end on the host clock, on queues that keep
    // no timestamps.
    const bool untimed =
        untimed_possible && std::none_of(timed.begin(), timed.end(), [](bool t) { return t; });
    RunTiming timing(std::move(timed), use.mode, untimed);
    Lanes used = lanes_of(use, untimed);
    ChunkScheduler scheduler(used.queues, used.slots, input_staging, output_staging,
                             staging_slots(), arrays, timing, compute);
    scheduler.run(extents);
    timing.ended();

    // What the run teaches the layout's model.
    const ResolvedTiming resolved = timing.resolve(extents);
    learn_from_run(model, extents, resolved, scheduler.host_ms());
    if (timing.records() > 0)
        record_ms = 0.7 * record_ms + 0.3 * timing.typical_record_ms();
    ++model.runs;
    learn_lanes(model, resolved);

    facts.device_bytes = slots.device_bytes();
    facts.staged_input = input_staging.any();
    facts.staged_output = output_staging.any();
    facts.chunking = plan.how;
    if (!lanes_used.empty()) facts.chunking += ", " + lanes_used;
    facts.learning = plan.learning;
    facts.predicted_ms = plan.predicted_ms;
    std::size_t samples = 0;
    for (const auto& stage : model.samples) samples += stage.size();
    PipelineReport report = make_report(facts, extents, resolved, model.fit(),
                                        samples - model.samples[host_stage].size());
    report.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                               started)
                         .count();
    model.timing_credit_ms = std::min(max_timing_credit_ms,
                                      model.timing_credit_ms + timing_budget * report.host_ms);
    model.last_run_ms = report.host_ms;
    if (timing_out != nullptr) *timing_out = resolved;
    return report;
}

}  // namespace dualrt::detail
