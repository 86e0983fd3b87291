#include "planning/automatic_chunking.hpp"

#include "run/chunk_extents.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dualrt::detail {
namespace {

// The smallest chunk automatic chunking considers, in bytes of the widest array: below about
// this a chunk's fixed costs (enqueues, DMA set-up) outweigh what it moves on any GPU measured.
constexpr std::size_t smallest_chunk_bytes = std::size_t{64} << 10;
// The largest chunk, in bytes of the widest array: keeps device memory (depth x chunk) modest.
constexpr std::size_t largest_chunk_bytes = std::size_t{256} << 20;
// The largest chunk where some array is pageable. Each staged array keeps depth + 2 pinned
// buffers of the largest chunk, and pinning costs far more than it saves above this size: one
// 16 MiB DMA is ~300 us at 55 GB/s, long beside a chunk's fixed costs, while a 1 GiB pageable
// triad learning with 64 MiB chunks pinned 1.2 GB and took 707 ms against 70 (H200).
constexpr std::size_t largest_staged_chunk_bytes = std::size_t{16} << 20;
// A first run's chunks: about a 32nd of the arrays, within 1 to 16 MiB of the widest array (the
// sizes that keep PCIe busy while fixed costs stay small), growing over three doublings at the
// start and shrinking over three halvings at the end, so the timed chunks span eight sizes.
constexpr std::size_t probe_fraction = 32;
constexpr std::size_t probe_min_bytes = std::size_t{1} << 20;
constexpr std::size_t probe_max_bytes = std::size_t{16} << 20;
constexpr std::size_t probe_ramp = 3;
// The safe plan's chunks: about a quarter of the arrays, within the first run's 1 to 16 MiB.
// Where the planner has no model, the best fixed chunk size of the stream sample (c = a + s*b)
// was 4 MiB on 16 MiB arrays and 16 MiB on 256 MiB ones, on CUDA and NVIDIA's OpenCL, H100 and
// H200 alike (eight runs); a 32nd, the first run's body, gave 1 and 8 MiB, and auto
// then reached 0.81-0.88 of the best on 16 MiB OpenCL streams, whose runs cannot pay to learn.
constexpr std::size_t safe_fraction = 4;
// The layout's last plan is kept while the model predicts it within this share of what it did.
constexpr double replan_change = 0.01;
// Where it does not, a new plan replaces it only if predicted faster by more than this share: a
// new plan's larger chunks make the device slots (and staging rings) be made anew, which cost a
// 1 GiB triad on NVIDIA's OpenCL 80-95 ms a time, twice its whole run, while the plans that the
// drifting model chose one after another differed by less than its noise.
constexpr double replan_gain = 0.03;
// Without room for a shaped first plan, the arrays are cut into at most this many chunks.
constexpr std::size_t small_input_chunks = 8;
// The smallest chunk a plan from the stage model may use, in bytes of the widest array (arrays
// too small for safe_fraction such chunks are cut into that many). A model fitted from timed
// spans must not talk auto into small chunks: the spans miss part of a chunk's fixed cost (on a
// GPU the copies of several lanes share the DMA engines, so a fit can find no fixed cost at
// all). On NVIDIA's OpenCL (H200) such a fit once planned 3442 chunks of 64-96 KiB for a 256 MiB
// stencil, 15x slower than 64 chunks; with a floor of 1 MiB, CUDA fits planned 861 chunks of
// 2.4 MiB for a 2 GiB pinned triad on one H200, 95.0 ms against 82.6 ms with 35 chunks, and the
// hand-written stream itself moves 1 MiB blocks at 0.87-0.88 of its 4 MiB rate on both backends
// (docs/BENCHMARKS.md).
constexpr std::size_t planned_min_bytes = std::size_t{4} << 20;
// A layout learns (shaped plans, timed windows) for at most this many runs; while its model is
// still unusable after them, runs take the safe plan (safe_fraction).
constexpr std::size_t learning_runs = 3;
// The learning runs' bodies, as multiples of the first run's: sizes that differ clearly from run
// to run, so the fit sees more size classes than one run's ramps give ("the timed
// copies do not yet grow" after three runs of the same shape on NVIDIA's OpenCL).
constexpr double learning_body_scale[learning_runs] = {1.0, 4.0, 0.25};
// Over several devices a run ends when the last device does, up to about one chunk after the
// others: chunks of at most 1/(devices x this) of the arrays keep that to a few percent of the
// run (17 chunks of ~120 MiB dealt to two H100s ran at 1.5x one). Not below
// dealt_min_bytes.
constexpr std::size_t min_chunks_per_device = 32;
// The least chunk of a run dealt to several devices, in bytes of the widest array: smaller arrays
// are cut into fewer chunks than min_chunks_per_device a device.
constexpr std::size_t dealt_min_bytes = std::size_t{1} << 20;
// Per-chunk fixed costs may be at most this share of a planned chunk's busiest stage.
constexpr double max_fixed_share = 0.5;
// A plan dealt to several devices ends in this many halvings of its chunks, so that the device
// that finishes last ends at most a small chunk after the others.
constexpr std::size_t dealt_tail = 3;

std::size_t round_up(std::size_t value, std::size_t granule) {
    return (value + granule - 1) / granule * granule;
}

std::string format_ms(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", ms);
    return text;
}

PlanDecision fixed_plan(const Chunking& chunking, const PlanRequest& request,
                        const char* operation) {
    const std::size_t granule = request.granule;
    std::size_t per_chunk = 0;
    if (chunking.kind() == Chunking::Kind::count) {
        const std::size_t granules = (request.count + granule - 1) / granule;
        per_chunk = (granules + chunking.value() - 1) / chunking.value() * granule;
    } else {
        per_chunk = chunking.value();
        if (per_chunk % granule != 0)
            raise_argument(operation, "Chunking::elements(" + std::to_string(per_chunk) +
                                          ") does not cut whole rows of " +
                                          std::to_string(granule) +
                                          " elements (Halo::rows); expected a multiple of " +
                                          std::to_string(granule));
    }
    PlanDecision plan;
    plan.sizes = fixed_sizes(request.count, per_chunk);
    return plan;
}

// A chunk body of about `1 / fraction` of the arrays, within 1 to 16 MiB of the widest array, in
// whole granules: the first run's (a 32nd), or the safe plan's (a quarter).
std::size_t body_of(const PlanRequest& request, std::size_t fraction) {
    return round_up(std::clamp(request.count / fraction, probe_min_bytes / request.widest_elem,
                               probe_max_bytes / request.widest_elem),
                    request.granule);
}

// A plan dealt to several devices: chunks of the largest size their cap allows (a
// 1/(devices x min_chunks_per_device) of the arrays), ending in dealt_tail halvings. The stage
// model is fitted from one device's runs and sees neither the dealing nor the devices slowing
// each other: with the model's choice of 1722 chunks of 1.2 MiB two H200s ran a 2 GiB pinned
// triad at 1.34-1.54x one, against 1.74x with 64 chunks of 32 MiB
// (docs/BENCHMARKS.md).
std::vector<std::size_t> dealt_sizes(const PlanRequest& request, const PlanLimits& limits) {
    const std::size_t floor =
        std::max(limits.smallest, round_up(dealt_min_bytes / request.widest_elem, request.granule));
    std::vector<std::size_t> sizes = shaped_sizes(request.count, limits.largest, 0, dealt_tail,
                                                  request.granule, std::min(floor, limits.largest));
    if (sizes.empty())
        sizes = equal_sizes(request.count,
                            std::max<std::size_t>(1, (request.count + limits.largest - 1) /
                                                         limits.largest),
                            request.granule);
    return sizes;
}

}  // namespace

std::size_t fixed_cost_floor(const StageModels& models, PipelineMode mode) {
    const StageModel& up = models.stage[upload_stage];
    const StageModel& compute = models.stage[compute_stage];
    const StageModel& down = models.stage[download_stage];
    // What a chunk costs whatever its size: the host's enqueues, and the busiest engine's own
    // set-up (the other engines' overlap it). Against the busiest engine's time per element.
    const double fixed = models.stage[host_stage].fixed_ms +
                         (mode == PipelineMode::two_queues
                              ? std::max(up.fixed_ms + down.fixed_ms, compute.fixed_ms)
                              : std::max({up.fixed_ms, compute.fixed_ms, down.fixed_ms}));
    const double rate =
        mode == PipelineMode::two_queues
            ? std::max(up.per_element_ms + down.per_element_ms, compute.per_element_ms)
            : std::max({up.per_element_ms, compute.per_element_ms, down.per_element_ms});
    if (!(rate > 0.0) || !(fixed > 0.0)) return 0;
    const double elements = fixed / (max_fixed_share * rate);
    return elements >= 1e15 ? std::size_t{1} << 50 : static_cast<std::size_t>(std::ceil(elements));
}

PlanDecision choose_plan(const Chunking& chunking, const PlanRequest& request,
                         LayoutModel& model, const ScheduleShape& shape, const char* operation) {
    if (chunking.kind() != Chunking::Kind::automatic) {
        PlanDecision plan = fixed_plan(chunking, request, operation);
        plan.how = "fixed: " + chunking.str() + ", " + describe_sizes(plan.sizes);
        return plan;
    }
    const std::size_t granule = request.granule;
    PlanLimits limits;
    limits.granule = granule;
    limits.smallest = round_up(std::max(smallest_chunk_bytes / request.widest_elem,
                                        request.halo_elements),
                               granule);
    const std::size_t largest_bytes =
        request.staged ? largest_staged_chunk_bytes : largest_chunk_bytes;
    limits.largest = std::max(limits.smallest,
                              largest_bytes / request.widest_elem / granule * granule);
    if (request.devices > 1) {
        const std::size_t share =
            request.count / (request.devices * min_chunks_per_device) / granule * granule;
        const std::size_t floor = round_up(dealt_min_bytes / request.widest_elem, granule);
        limits.largest =
            std::max(limits.smallest, std::min(limits.largest, std::max(share, floor)));
    }

    PlanDecision plan;
    const bool learning = !model.can_plan() && model.runs < learning_runs && request.can_learn;
    if (request.devices > 1 && !learning) {
        plan.sizes = dealt_sizes(request, limits);
        if (model.can_plan()) plan.predicted_ms = simulate_ms(plan.sizes, model.fit(), shape);
        // A 64th of small arrays is under the floor, and a staged one's above the largest chunk.
        plan.how = "auto: dealt to " + std::to_string(request.devices) + " devices, chunks of 1/" +
                   std::to_string(request.devices * min_chunks_per_device) +
                   " of the arrays where the chunk size bounds allow, ending in halvings: " +
                   describe_sizes(plan.sizes);
        return plan;
    }
    if (model.can_plan()) {
        const StageModels fitted = model.fit();
        CachedPlan& cached = model.plan;
        const bool same_layout = cached.count == request.count && cached.largest == limits.largest;
        double again = 0.0;  // the cached plan, as the model now predicts it
        if (same_layout) again = simulate_ms(cached.sizes, fitted, shape);
        const bool drifted = same_layout && std::abs(again - cached.predicted_ms) >
                                                replan_change * cached.predicted_ms;
        if (same_layout) cached.predicted_ms = again;
        if (!same_layout || drifted) {
            PlanLimits planned = limits;
            // Floors, in elements: the measured per-chunk fixed costs must not dominate a
            // chunk, and a model from timed spans must not pick small chunks; arrays too small
            // for safe_fraction such chunks are cut into that many (16 MiB arrays into 4 MiB
            // chunks, the best fixed size of every 16 MiB stream measured).
            const std::size_t floor = std::max(planned_min_bytes / request.widest_elem,
                                               fixed_cost_floor(fitted, shape.mode));
            planned.smallest = std::max(
                limits.smallest,
                round_up(std::min(floor,
                                  std::max<std::size_t>(request.count / safe_fraction, 1)),
                         granule));
            // The largest chunk holds against the floor: above it, staged layouts pin more
            // than chunking saves (a floor of 24 MiB chunks grew the rings twice in 5 runs of a
            // 1 GiB triad on NVIDIA's OpenCL, 0.3 s each).
            planned.smallest = std::min(planned.smallest, planned.largest);
            const PlanChoice choice = best_plan(request.count, planned, fitted, shape);
            if (!same_layout || choice.predicted_ms < again * (1.0 - replan_gain))
                cached = CachedPlan{request.count, limits.largest, choice.sizes,
                                    choice.predicted_ms, choice.uniform_ms};
        }
        const CachedPlan& choice = cached;
        plan.sizes = choice.sizes;
        plan.predicted_ms = choice.predicted_ms;
        plan.how = "auto: planned by the stage model of " + std::to_string(model.runs) +
                   (model.runs == 1 ? " run (" : " runs (") + fitted.describe() + "): " +
                   describe_sizes(plan.sizes) + "; predicted " + format_ms(choice.predicted_ms) +
                   " (equal chunks at best " + format_ms(choice.uniform_ms) + ")";
        return plan;
    }
    // Halo included; within the largest chunk (several devices' runs allow smaller ones).
    const auto within_limits = [&](std::size_t size) {
        return std::min(std::max(size, limits.smallest), limits.largest);
    };
    const std::size_t body = within_limits(body_of(request, probe_fraction));
    if (model.runs >= learning_runs || !request.can_learn) {
        // The timings still tell nothing usable (a CPU device, a noisy clock), or timing would
        // cost this run more than it is worth (a short one): equal chunks of about a quarter of
        // the arrays, 1 to 16 MiB, where fixed costs are small against the copies and fill and
        // drain short. Sampled windows go on, as on any planned run, paid from the timing
        // credit.
        const std::size_t safe = within_limits(body_of(request, safe_fraction));
        plan.sizes = equal_sizes(request.count,
                                 std::max<std::size_t>(1, (request.count + safe / 2) / safe),
                                 granule);
        plan.how = std::string(model.runs == 0 ? "auto: first run of this layout, a safe plan, "
                                               : "auto: a safe plan, ") +
                   (model.runs >= learning_runs
                        ? "the stage model of " + std::to_string(model.runs) +
                              " runs being unusable (" + model.why_not() + ")"
                        : std::string("the run too short to pay for learning")) +
                   ": " + describe_sizes(plan.sizes);
        return plan;
    }
    plan.learning = true;
    // Each learning run its own body, so that the runs together time sizes far apart.
    const double scale = learning_body_scale[model.runs % learning_runs];
    const std::size_t scaled = round_up(
        std::clamp(static_cast<std::size_t>(static_cast<double>(body) * scale),
                   std::max(limits.smallest, granule),
                   std::max<std::size_t>(limits.smallest,
                                         std::min(limits.largest,
                                                  request.count / small_input_chunks))),
        granule);
    for (std::size_t ramp = probe_ramp; ramp >= 1 && plan.sizes.empty(); --ramp)
        plan.sizes = shaped_sizes(request.count, scaled, ramp, ramp, granule, limits.smallest);
    if (plan.sizes.empty()) {
        const std::size_t chunks =
            std::clamp<std::size_t>(request.count / limits.smallest, 1, small_input_chunks);
        plan.sizes = equal_sizes(request.count, chunks, granule);
    }
    plan.how = (model.runs == 0 ? std::string("auto: first run of this layout, ")
                                : "auto: run " + std::to_string(model.runs + 1) +
                                      " of this layout, still learning (" + model.why_not() +
                                      "), ") +
               describe_sizes(plan.sizes) +
               "; its timed chunks fit the stage model that plans the next runs";
    return plan;
}

}  // namespace dualrt::detail
