// Pipeline: owns the queues, buffers and stage models; a run checks its arrays, plans its chunks,
// runs the schedule, learns from the timed chunks and reports.
#include <dualrt/pipeline.hpp>

#include "errors.hpp"
#include "pipeline_auto.hpp"
#include "pipeline_checks.hpp"
#include "pipeline_drivers.hpp"
#include "pipeline_model.hpp"
#include "pipeline_report.hpp"
#include "pipeline_schedule.hpp"
#include "pipeline_slots.hpp"
#include "pipeline_timing.hpp"

#include <algorithm>
#include <chrono>

namespace dualrt {
namespace {

// Lanes are queues: beyond this many, more would only cost device memory and scheduling.
constexpr std::size_t max_lanes = 16;
constexpr std::size_t default_lanes = 4;
// Three stage queues keep this many chunks in flight by default: one more than the stages, so an
// upload into a reused buffer need not wait for a download that ends just as it could start
// (with 3, any jitter of one stage stalled the other two; GPU run F, small chunks).
constexpr std::size_t default_three_queue_depth = 4;
// Pinned staging buffers per staged array: two more than the chunks in flight, so the host's
// memcpy can run two chunks ahead of the device.
constexpr std::size_t extra_staging_slots = 2;
// Sampled timing may spend about this share of the runs' host time on timed events, and save up
// at most this many ms of it.
constexpr double timing_budget = 0.02;
constexpr double max_timing_credit_ms = 5.0;
// The first guess of a timed event's host cost, before one has been measured.
constexpr double first_record_ms = 0.005;

PipelineMode resolve(PipelineMode mode) {
    return mode == PipelineMode::automatic ? PipelineMode::lanes : mode;
}

std::size_t queue_count(PipelineMode mode, std::size_t depth) {
    switch (mode) {
    case PipelineMode::two_queues: return 2;
    case PipelineMode::three_queues: return 3;
    default: return depth;
    }
}

}  // namespace

const char* to_string(PipelineMode mode) noexcept {
    switch (mode) {
    case PipelineMode::automatic: return "automatic";
    case PipelineMode::two_queues: return "two queues";
    case PipelineMode::three_queues: return "three queues";
    case PipelineMode::lanes: return "lanes";
    }
    return "?";
}

const char* to_string(PipelineTiming timing) noexcept {
    switch (timing) {
    case PipelineTiming::sampled: return "sampled";
    case PipelineTiming::every_chunk: return "every chunk";
    }
    return "?";
}

std::string Chunking::str() const {
    switch (kind_) {
    case Kind::automatic: return "auto";
    case Kind::count: return std::to_string(value_) + " chunks";
    case Kind::elements: return std::to_string(value_) + " elements per chunk";
    }
    return "?";
}

struct Pipeline::State {
    Device device;
    PipelineOptions options;
    PipelineMode mode = PipelineMode::lanes;
    std::size_t depth = 0;
    detail::PipelineQueues queues;
    // Kept between runs and grown when a run needs more.
    detail::DeviceSlots slots;
    detail::StagingRings input_staging, output_staging;
    detail::LayoutModels models;
    double record_ms = first_record_ms;  // host cost of one timed event, as measured
    std::vector<Device> devices;  // every device; beyond one, `several` runs them
    std::unique_ptr<detail::DeviceDrivers> several;
};

Pipeline::Pipeline(Device device, PipelineOptions options) : state_(std::make_unique<State>()) {
    const char* op = "Pipeline";
    if (!device.valid()) detail::raise_argument(op, "the Device is empty");
    if (options.depth == 1)
        detail::raise_argument(op, "depth 1 cannot overlap anything; expected 0 (the default) "
                                   "or at least 2");
    if (options.chunking.kind() != Chunking::Kind::automatic && options.chunking.value() == 0)
        detail::raise_argument(op, std::string("Chunking::") +
                                       (options.chunking.kind() == Chunking::Kind::count
                                            ? "count"
                                            : "elements") +
                                       "(0) is empty; expected at least 1");
    State& s = *state_;
    s.device = std::move(device);
    s.options = options;
    s.mode = resolve(options.mode);
    if (s.mode == PipelineMode::lanes && options.depth > max_lanes)
        detail::raise_argument(op, "depth " + std::to_string(options.depth) +
                                       " with lanes would make as many queues; expected at "
                                       "most " + std::to_string(max_lanes));
    const std::size_t fixed_queues = queue_count(s.mode, 0);
    s.depth = options.depth != 0                          ? options.depth
              : s.mode == PipelineMode::lanes          ? default_lanes
              : s.mode == PipelineMode::three_queues   ? default_three_queue_depth
                                                       : fixed_queues;
    s.devices = {s.device};
    s.queues.mode = s.mode;
    for (std::size_t q = 0; q < queue_count(s.mode, s.depth); ++q)
        s.queues.queues.push_back(s.device.create_queue());
}

Pipeline::Pipeline(std::vector<Device> devices, PipelineOptions options)
    : Pipeline((detail::check_device_list(devices, "Pipeline"), devices.front()), options) {
    State& s = *state_;
    s.devices = std::move(devices);
    if (s.devices.size() > 1)
        s.several = std::make_unique<detail::DeviceDrivers>(s.devices, std::move(s.queues),
                                                            s.depth, s.options);
}

Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;

const Device& Pipeline::device() const { return state_->device; }
const std::vector<Device>& Pipeline::devices() const { return state_->devices; }
const PipelineOptions& Pipeline::options() const { return state_->options; }
PipelineMode Pipeline::mode() const { return state_->mode; }

PipelineReport Pipeline::run_erased(const detail::HostSide* inputs, std::size_t input_count,
                                    const detail::HostSide* outputs, std::size_t output_count,
                                    const Halo& halo, const ChunkFunction& compute) {
    const auto started = std::chrono::steady_clock::now();
    State& s = *state_;
    if (s.several) return s.several->run(inputs, input_count, outputs, output_count, halo, compute);
    const char* op = "Pipeline::run";
    // A HostBuffer of another OpenCL device is registered with this one, or staged.
    const detail::RunArrays arrays = detail::as_seen_by(
        detail::checked_arrays(inputs, input_count, outputs, output_count, halo,
                               s.options.in_place, op),
        *s.device.impl());

    detail::RunFacts facts;
    facts.mode = s.mode;
    facts.queues = s.queues.queues.size();
    facts.depth = s.depth;
    facts.input_arrays = input_count;
    facts.output_arrays = output_count;
    if (arrays.count == 0) {
        PipelineReport empty = detail::make_report(facts, {}, {}, {}, 0);
        empty.chunking = "empty arrays: nothing to run";
        return empty;
    }

    // The plan.
    detail::LayoutModel& model = s.models[detail::layout_key(arrays)];
    std::size_t widest = 1;
    for (const auto* side : {&arrays.inputs, &arrays.outputs})
        for (const auto& array : *side) widest = std::max(widest, array.elem_size);
    detail::PlanRequest request{arrays.count, halo.row_width(), widest,
                                halo.before() + halo.after()};
    std::size_t bytes = 0;  // over the bus, for what learning may cost
    for (const auto* side : {&arrays.inputs, &arrays.outputs})
        for (const auto& array : *side) bytes += arrays.count * array.elem_size;
    request.can_learn = s.options.timing == PipelineTiming::every_chunk ||
                        detail::learning_affordable(bytes, s.record_ms);
    const std::size_t staging_slots = s.depth + extra_staging_slots;
    detail::ScheduleShape shape{s.mode, s.depth, 0};
    for (const auto& array : arrays.inputs)
        if (!array.pinned) shape.staging_slots = staging_slots;
    request.staged = detail::any_staged(arrays);
    const detail::PlanDecision plan =
        detail::choose_plan(s.options.chunking, request, model, shape, op);
    if (s.options.chunking.kind() != Chunking::Kind::automatic)
        detail::check_halo_fits(halo, plan.sizes, op);
    const std::vector<detail::ChunkExtent> extents = detail::extents_of(plan.sizes);

    // Buffers for the largest chunk: device slots, and pinned rings for pageable arrays.
    const std::size_t largest = *std::max_element(plan.sizes.begin(), plan.sizes.end());
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
    s.slots.ensure(s.device, s.depth, input_bytes, output_bytes, s.options.in_place);
    s.input_staging.ensure(s.device, staging_slots, input_staged);
    s.output_staging.ensure(s.device, staging_slots, output_staged);

    // The run.
    // A layout's first run with fixed chunks times windows too: the report estimates untimed
    // chunks' stages from the model. (Automatic chunking decides that in its plan: a short
    // run takes the safe plan, untimed.)
    const bool first_of_layout = model.samples[detail::upload_stage].size() == 0;
    const bool fixed = s.options.chunking.kind() != Chunking::Kind::automatic;
    std::vector<bool> timed = detail::choose_timed_chunks(
        extents.size(), s.options.timing, plan.learning || (first_of_layout && fixed), model.runs,
        s.record_ms, model.timing_credit_ms);
    detail::RunTiming timing(std::move(timed), s.mode);
    detail::ChunkScheduler scheduler(s.queues, s.slots, s.input_staging, s.output_staging,
                                     staging_slots, arrays, timing, compute);
    scheduler.run(extents);

    // What the run teaches the layout's model.
    const detail::ResolvedTiming resolved = timing.resolve(extents);
    for (const auto& duration : resolved.durations)
        if (duration.known_start && duration.in_order)
            model.samples[duration.stage].add(static_cast<double>(extents[duration.chunk].count),
                                              duration.ms);
    for (std::size_t i = 0; i < extents.size(); ++i)
        model.samples[detail::host_stage].add(static_cast<double>(extents[i].count),
                                              scheduler.host_ms()[i]);
    if (timing.records() > 0)
        s.record_ms = 0.7 * s.record_ms + 0.3 * timing.typical_record_ms();
    ++model.runs;

    facts.device_bytes = s.slots.device_bytes();
    facts.staged_input = s.input_staging.any();
    facts.staged_output = s.output_staging.any();
    facts.chunking = plan.how;
    facts.predicted_ms = plan.predicted_ms;
    std::size_t samples = 0;
    for (const auto& stage : model.samples) samples += stage.size();
    PipelineReport report =
        detail::make_report(facts, extents, resolved, model.fit(),
                            samples - model.samples[detail::host_stage].size());
    report.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                               started)
                         .count();
    model.timing_credit_ms = std::min(max_timing_credit_ms,
                                      model.timing_credit_ms + timing_budget * report.host_ms);
    return report;
}

}  // namespace dualrt
