#include "tune/planner.hpp"

#include "run/run_checks.hpp"
#include "run/run_recordings.hpp"
#include "support/raise.hpp"
#include "tune/lane_choice.hpp"
#include "tune/timed_chunks.hpp"

#include <algorithm>

namespace dualrt::detail {
namespace {

// Sampled timing may spend about this share of the runs' host time on timed events while a
// layout's lanes are still to be chosen, and save up at most this many ms of it. Once they are
// chosen (or nothing is left to choose) the windows only re-check the choice and feed the
// report's estimates, and get a quarter of it. The whole 2% showed: a 16 MiB stream in one
// 16 MiB chunk ran at 0.92-0.97 of the same stream hand-written on dualrt's queues with it, and
// 0.98-0.99 with no window after the first run (H100, CUDA, `stream --size 16M`, three rounds).
constexpr double timing_budget = 0.02;
constexpr double settled_timing_budget = 0.005;
constexpr double max_timing_credit_ms = 5.0;
// The first guess of a timed event's host cost, before one has been measured; later runs move it
// a third of the way to each run's median.
constexpr double first_record_ms = 0.005;
constexpr double record_ms_weight = 0.3;
// Replays are for runs in chunks under this many bytes of the widest array, where the host's
// enqueues set the pace. From there the device does, and stage queues overlap as well enqueued
// one by one: a 16 MiB stream ran 1.49x (64 KiB chunks) and 1.24x (128 KiB) faster replayed
// than the same Pipeline enqueueing it, but 0.95x at 256 KiB, where the plain run took stage
// queues too, and 1.00x, 0.97x and 0.97x at 1, 4 and 16 MiB in a run that replayed those on
// lanes (H200, CUDA, `stream --size 16M`, docs/recording.md). Larger chunks run as usual,
// without the digest a replay needs.
constexpr std::size_t replay_chunk_limit_bytes = min_stage_queue_chunk_bytes;
// How much slower a run goes on queues that keep timestamps: NVIDIA's OpenCL ran the native
// stencil up to 4.6% slower (2.5% on average) on queues made with CL_QUEUE_PROFILING_ENABLE than
// on plain ones, at 1 to 16 MiB chunks (H200). A timed window is charged this share of a run as
// well.
constexpr double timed_queue_share = 0.03;

std::size_t widest_elem(const RunArrays& arrays) {
    std::size_t widest = 1;
    for (const auto* side : {&arrays.inputs, &arrays.outputs})
        for (const auto& array : *side) widest = std::max(widest, array.elem_size);
    return widest;
}

// The bytes of the widest array in the largest of `sizes`.
std::size_t largest_chunk_bytes(const std::vector<std::size_t>& sizes, const RunArrays& arrays) {
    const std::size_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
    return largest * widest_elem(arrays);
}

}  // namespace

std::size_t queue_count(PipelineMode mode, std::size_t depth) {
    switch (mode) {
    case PipelineMode::two_queues: return 2;
    case PipelineMode::three_queues: return 3;
    default: return depth;
    }
}

Planner::Planner(const PipelineOptions& options, PipelineMode mode, std::size_t depth,
                 Backend backend, bool untimed_queues, RecordingPath recording)
    : options_(options),
      mode_(mode),
      depth_(depth),
      backend_(backend),
      untimed_queues_(untimed_queues),
      recording_(recording),
      record_ms_(first_record_ms) {}

bool Planner::lanes_settled(const LayoutModel& model, std::size_t chunks) const {
    // Runs of one or two chunks take as many queues whatever the lanes, so they have nothing to
    // choose either (a 16 MiB stream in one chunk gathered the three timed chunks a choice needs
    // over nine runs or so, one window every third run).
    return !adapts_lanes() || model.lanes_chosen || chunks <= 2;
}

void Planner::replay_refusal_of(const RunArrays& arrays, std::size_t chunk_bytes,
                                std::string& refusal) const {
    refusal = replay_refusal(options_.replay, options_.timing, arrays, recording_);
    if (refusal.empty() && chunk_bytes >= replay_chunk_limit_bytes)
        refusal = "chunks of " + format_bytes(chunk_bytes) + ", where the device sets the pace "
                  "and a replay gains nothing";
}

void Planner::choose_replay(RunPlan& plan, const LayoutModel& model) const {
    plan.replay = false;
    if (!plan.no_replay.empty()) return;
    // A layout's first run times its stages as any run does: the report's estimates and the
    // lane choice start from it. Once the lanes are chosen, the windows that would re-check the
    // choice are given up for the replay, which gains more than they tell (a 16 MiB stream in
    // 64 KiB chunks ran 1.49x faster replayed than enqueued chunk by chunk; H200, CUDA,
    // docs/recording.md). Until then, the runs that time no window replay.
    if (model.runs > 0 && lanes_settled(model, plan.sizes.size()))
        plan.timed.assign(plan.sizes.size(), false);
    if (std::any_of(plan.timed.begin(), plan.timed.end(), [](bool t) { return t; })) {
        plan.no_replay = model.runs == 0 ? "the layout's first run times its stages"
                                         : "this run times a window of chunks while the lanes "
                                           "are being chosen";
        return;
    }
    plan.replay = true;
}

bool Planner::adapts_lanes() const {
    return mode_ == PipelineMode::lanes && options_.depth == 0;  // a depth set is kept as set
}

bool Planner::adapts_mode() const {
    // Lanes asked for stay lanes. On OpenCL each of the three queues' waits per chunk is a
    // marker (about 8 us of host time on NVIDIA's driver), and three queues gained nothing
    // there: `overlap` auto 0.964 of native against 0.966 on lanes, and `stencil` 17.6-18.1 ms
    // against 16.0-16.2 on lanes (H200). CUDA gained: 0.994 against 0.960, and 14.2-16.1 ms
    // against 15.0-16.4.
    return adapts_lanes() && options_.mode == PipelineMode::automatic &&
           backend_ == Backend::cuda;
}

QueueUse Planner::queue_use(const LayoutModel& model, std::size_t chunk_bytes,
                            bool replayed) const {
    // A replay's commands and hand-offs cost the host nothing, so replayed runs take stage
    // queues at any size and whatever lanes the timed stages chose: those stages were timed on
    // runs the host's enqueues paced. A 16 MiB stream in 64 KiB chunks, replayed, took 2.4 ms a
    // run on stage queues, 2.9 ms on four lanes and 3.2-3.3 ms on the two lanes its timed stages
    // chose (H200, CUDA, host time per run; docs/recording.md).
    if (adapts_mode() && replayed) return QueueUse{PipelineMode::three_queues, depth_};
    // Chunks too small for stage queues keep every lane, whatever their stages (lane_choice.hpp).
    if (chunk_bytes < min_stage_queue_chunk_bytes) return QueueUse{mode_, depth_};
    if (adapts_mode() && model.stage_queues) return QueueUse{PipelineMode::three_queues, depth_};
    const bool fewer = adapts_lanes() && model.lanes >= 2 && model.lanes < depth_;
    return QueueUse{mode_, fewer ? model.lanes : depth_};
}

LayoutModel& Planner::model_of(const RunArrays& arrays) {
    // A run looks its layout up four times (plan, learn, fit, learn_run_time), and a Pipeline
    // mostly runs one layout: the latest is found again without building its key.
    if (latest_model_ != nullptr && same_layout(arrays, latest_layout_)) return *latest_model_;
    layout_key(arrays, key_);
    latest_model_ = &models_[key_];  // copies the key only when the layout is new
    latest_layout_ = arrays;
    return *latest_model_;
}

PlanRequest Planner::request_of(const RunArrays& arrays, const Halo& halo) {
    PlanRequest request{arrays.count, halo.row_width(), widest_elem(arrays),
                        halo.before() + halo.after()};
    request.staged = any_staged(arrays);
    return request;
}

RunPlan Planner::plan(const RunArrays& arrays, const Halo& halo, const char* operation) {
    RunPlan plan;
    this->plan(arrays, halo, operation, plan);
    return plan;
}

void Planner::plan(const RunArrays& arrays, const Halo& halo, const char* operation,
                   RunPlan& plan) {
    LayoutModel& model = model_of(arrays);
    const PlanRequest request = request_of(arrays, halo);
    if (last_request_ != request) {
        last_decision_ = choose_plan(options_.chunking, request, operation);
        last_request_ = request;
        plan_text_.reset();
    }
    plan.sizes = last_decision_.sizes;
    const std::size_t chunk_bytes = largest_chunk_bytes(plan.sizes, arrays);
    replay_refusal_of(arrays, chunk_bytes, plan.no_replay);
    if (options_.chunking.kind() != Chunking::Kind::automatic)
        check_halo_fits(halo, plan.sizes, operation);
    choose_timed_chunks(plan.sizes.size(), options_.timing,
                        model.samples[upload_stage].size() == 0, model.runs, record_ms_,
                        model.timing_credit_ms,
                        untimed_queues_ ? timed_queue_share * model.last_run_ms : 0.0,
                        plan.timed);
    choose_replay(plan, model);
    plan.queues = queue_use(model, chunk_bytes, plan.replay);
    plan.how = plan_text(plan.queues, model, plan.replay);
    // No more lanes than chunks: a lane without a chunk is only waited for at the run's end (a
    // 16 MiB stream in one chunk ran 5-8 us a run faster on one lane than on four; H100, CUDA).
    if (plan.queues.mode == PipelineMode::lanes)
        plan.queues.in_flight =
            std::max<std::size_t>(1, std::min(plan.queues.in_flight, plan.sizes.size()));
    // A run that times no chunk records no event: its start and end are read on the host clock
    // (on OpenCL, on queues that keep no timestamps). On CUDA the start and each queue's end
    // were a timed event recorded and read back each, driver calls that a hand-written pipeline
    // does not make.
    plan.host_clock =
        std::none_of(plan.timed.begin(), plan.timed.end(), [](bool t) { return t; });
}

PlanDecision Planner::plan_dealt(const RunArrays& arrays, const Halo& halo, std::size_t devices,
                                 bool staged, const char* operation) const {
    PlanRequest request = request_of(arrays, halo);
    request.devices = devices;
    request.staged = staged;  // chunks are capped for staging if any device stages
    PlanDecision plan = choose_plan(options_.chunking, request, operation);
    if (options_.chunking.kind() != Chunking::Kind::automatic)
        check_halo_fits(halo, plan.sizes, operation);
    return plan;
}

QueueUse Planner::dealt_queues(const RunArrays& arrays, const std::vector<std::size_t>& sizes) {
    return queue_use(model_of(arrays), largest_chunk_bytes(sizes, arrays));
}

void Planner::learn(const RunArrays& arrays, const RunRecord& record) {
    LayoutModel& model = model_of(arrays);
    for (const auto& duration : record.resolved.durations)
        if (duration.known_start && duration.in_order)
            model.samples[duration.stage].add(
                static_cast<double>(record.extents[duration.chunk].count), duration.ms);
    if (record.extents.empty()) return;
    if (record.whole_run && record.typical_record_ms > 0.0)
        record_ms_ = (1.0 - record_ms_weight) * record_ms_ +
                     record_ms_weight * record.typical_record_ms;
    ++model.runs;
    if (adapts_lanes()) {
        const LaneChoice next = choose_lanes(record.resolved, model.lane_evidence);
        if (next.known) {
            model.lanes_chosen = true;
            model.lanes = next.lanes;
            model.stage_queues = next.stage_queues;
            model.busiest_share = next.busiest_share;
        }
    }
}

void Planner::learn_run_time(const RunArrays& arrays, std::size_t chunks, double run_ms) {
    if (chunks == 0) return;
    LayoutModel& model = model_of(arrays);
    const double budget = lanes_settled(model, chunks) ? settled_timing_budget : timing_budget;
    model.timing_credit_ms =
        std::min(max_timing_credit_ms, model.timing_credit_ms + budget * run_ms);
    model.last_run_ms = run_ms;
}

Planner::Fitted Planner::fit(const RunArrays& arrays) {
    const LayoutModel& model = model_of(arrays);
    Fitted fitted{model.fit()};
    for (const auto& stage : model.samples) fitted.device_samples += stage.size();
    return fitted;
}

const std::string& Planner::plan_text(const QueueUse& use, const LayoutModel& model,
                                      bool replayed) {
    const auto made_of = std::make_tuple(use.mode, use.in_flight, model.busiest_share, replayed);
    if (!plan_text_ || plan_text_->made_of != made_of) {
        std::string how = last_decision_.how;
        // The lanes as chosen before this run is learned from.
        if (const std::string lanes = describe(use, model, replayed);
            !lanes.empty())
            how += ", " + lanes;
        plan_text_ = PlanText{made_of, std::move(how)};
    }
    return plan_text_->how;
}

std::string Planner::describe(const QueueUse& use, const RunArrays& arrays) {
    return describe(use, model_of(arrays));
}

std::string Planner::describe(const QueueUse& use, const LayoutModel& model,
                              bool replayed) const {
    if (use.mode != mode_)
        return replayed ? describe_replayed_stage_queues(depth_)
                        : describe_stage_queues(depth_, model.busiest_share);
    if (use.in_flight < depth_) return describe_lanes(use.in_flight, depth_, model.busiest_share);
    return "";
}

}  // namespace dualrt::detail
