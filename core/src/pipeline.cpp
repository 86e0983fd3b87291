// Pipeline: plans the chunks, owns the queues and buffers, runs the schedule and reports.
#include <dualrt/pipeline.hpp>

#include "backend/backend.hpp"
#include "errors.hpp"
#include "log.hpp"
#include "pipeline_plan.hpp"
#include "pipeline_report.hpp"
#include "pipeline_schedule.hpp"

#include <algorithm>
#include <chrono>

namespace dualrt {
namespace {

// Calibration chunks of "auto": three at a small size and three at four times that, so a fixed
// and a per-element cost can be told apart; together about an eighth of a large input.
constexpr std::size_t calibration_chunks_per_size = 3;
constexpr std::size_t calibration_size_ratio = 4;
constexpr std::size_t calibration_fraction = 128;  // small size = input / 128
// Chunks of the large size enqueued behind the calibration chunks, so the device has work while
// the host waits for the calibration's events, fits the model and enqueues the rest.
constexpr std::size_t bridge_chunks = 3;
constexpr std::size_t max_chunks = 1024;
constexpr std::size_t max_chunk_bytes = 256u << 20;
// Without room to calibrate, a small input is cut into at most this many chunks.
constexpr std::size_t uncalibrated_max_chunks = 8;

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

PipelineMode resolve(PipelineMode mode, const DeviceInfo& info) {
    if (mode != PipelineMode::automatic) return mode;
    // OpenCL cannot count copy engines; a GPU that does not say gets three queues, which cost
    // nothing over two where there is only one engine.
    return info.copy_engines.value_or(2) >= 2 ? PipelineMode::three_queues
                                              : PipelineMode::two_queues;
}

}  // namespace

const char* to_string(PipelineMode mode) noexcept {
    switch (mode) {
    case PipelineMode::automatic: return "automatic";
    case PipelineMode::two_queues: return "two queues";
    case PipelineMode::three_queues: return "three queues";
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
    PipelineMode mode = PipelineMode::automatic;
    std::size_t depth = 0;
    detail::PipelineQueues queues;
    // Kept between runs and grown when a run needs larger chunks.
    std::vector<detail::DeviceSlot> device_slots;
    std::size_t device_slot_bytes[2] = {0, 0};  // input, output
    std::vector<detail::HostSlot> staging[2];   // pinned buffers for pageable input, output
    std::size_t staging_bytes[2] = {0, 0};
    detail::HostEnd input_end, output_end;      // this run's host sides
};

Pipeline::Pipeline(Device device, PipelineOptions options) : state_(std::make_unique<State>()) {
    if (!device.valid()) detail::raise_argument("Pipeline", "the Device is empty");
    if (options.depth == 1)
        detail::raise_argument("Pipeline", "depth 1 cannot overlap anything; expected 0 (one per "
                                           "queue) or at least 2");
    if (options.chunking.kind() != Chunking::Kind::automatic && options.chunking.value() == 0)
        detail::raise_argument("Pipeline", "Chunking::" +
                                               std::string(options.chunking.kind() ==
                                                                   Chunking::Kind::count
                                                               ? "count"
                                                               : "elements") +
                                               "(0) is empty; expected at least 1");
    State& s = *state_;
    s.device = std::move(device);
    s.options = options;
    s.mode = resolve(options.mode, s.device.info());
    const bool three = s.mode == PipelineMode::three_queues;
    s.depth = options.depth != 0 ? options.depth : (three ? 3 : 2);
    s.queues.upload = s.device.create_queue();
    s.queues.compute = s.device.create_queue();
    s.queues.download = three ? s.device.create_queue() : s.queues.upload;
}

Pipeline::~Pipeline() = default;
Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;

const Device& Pipeline::device() const { return state_->device; }
const PipelineOptions& Pipeline::options() const { return state_->options; }
PipelineMode Pipeline::mode() const { return state_->mode; }

void Pipeline::check_sizes(std::size_t input, std::size_t output) {
    if (input != output)
        detail::raise_argument("Pipeline::run", "the input holds " + std::to_string(input) +
                                                    " elements and the output " +
                                                    std::to_string(output) +
                                                    "; expected the same count");
}

namespace {

// Device buffers for `depth` chunks of up to `elements` elements, reused when large enough.
void ensure_device_slots(const Device& device, std::vector<detail::DeviceSlot>& slots, std::size_t (&slot_bytes)[2],
                         std::size_t depth, std::size_t in_bytes, std::size_t out_bytes,
                         bool in_place) {
    if (slots.size() == depth && slot_bytes[0] >= in_bytes && slot_bytes[1] >= out_bytes) return;
    slots.clear();
    slot_bytes[0] = slot_bytes[1] = 0;
    for (std::size_t i = 0; i < depth; ++i) {
        detail::DeviceSlot slot;
        slot.input = device.alloc<unsigned char>(in_bytes);
        slot.output = in_place ? slot.input : BufferView(device.alloc<unsigned char>(out_bytes));
        slots.push_back(std::move(slot));
    }
    slot_bytes[0] = in_bytes;
    slot_bytes[1] = in_place ? in_bytes : out_bytes;
}

// Pinned buffers for a pageable host side; none when pinning is refused (the copies then take
// the driver's pageable path, slower but correct).
void ensure_staging(const Device& device, std::vector<detail::HostSlot>& staging,
                    std::size_t& have_bytes, std::size_t slots, std::size_t bytes) {
    if (staging.size() == slots && have_bytes >= bytes) return;
    staging.clear();
    have_bytes = 0;
    try {
        for (std::size_t i = 0; i < slots; ++i) {
            auto buffer = device.impl()->create_host_buffer(bytes);
            if (!buffer) throw std::runtime_error("the backend returned no pinned buffer");
            auto* data = static_cast<unsigned char*>(buffer->data());
            staging.push_back(detail::HostSlot{std::move(buffer), data});
        }
        have_bytes = bytes;
    } catch (const std::exception& e) {
        staging.clear();
        detail::log().warn("Pipeline: pinning {} x {} for staging was refused ({}); pageable "
                           "host memory goes through the driver's own path",
                           slots, detail::format_bytes(bytes), e.what());
    }
}

}  // namespace

PipelineReport Pipeline::run_erased(HostSide input, HostSide output, std::size_t count,
                                    std::size_t in_elem, std::size_t out_elem,
                                    const std::function<void(ChunkBytes&)>& compute) {
    const auto started = std::chrono::steady_clock::now();
    State& s = *state_;
    const char* op = "Pipeline::run";
    if (s.options.in_place && in_elem != out_elem)
        detail::raise_argument(op, "in_place needs one element type on both sides; the input's "
                                   "elements have " + std::to_string(in_elem) +
                                       " bytes, the output's " + std::to_string(out_elem));
    PipelineReport empty;
    empty.mode = s.mode;
    empty.queues = s.mode == PipelineMode::three_queues ? 3 : 2;
    empty.depth = s.depth;
    if (count == 0) {
        empty.chunking = "empty input: nothing to run";
        return empty;
    }
    if (input.data == nullptr || output.data == nullptr)
        detail::raise_argument(op, std::string("the ") + (input.data ? "output" : "input") +
                                       " pointer is null");

    // The plan: fixed chunks, or auto's calibration chunks first.
    const Chunking& chunking = s.options.chunking;
    const std::size_t min_elements = detail::min_chunk_elements(std::max(in_elem, out_elem));
    std::vector<detail::ChunkExtent> first_pass;
    std::size_t per_chunk = 0;
    std::size_t small = 0, large = 0;
    std::string how;
    if (chunking.kind() == Chunking::Kind::count) {
        per_chunk = ceil_div(count, std::min(chunking.value(), count));
        how = "fixed: " + chunking.str();
    } else if (chunking.kind() == Chunking::Kind::elements) {
        per_chunk = std::min(chunking.value(), count);
        how = "fixed: " + chunking.str();
    } else {
        small = std::max(min_elements, count / calibration_fraction);
        large = small * calibration_size_ratio;
        const std::size_t calibration = calibration_chunks_per_size * (small + large);
        if (2 * (calibration + bridge_chunks * large) > count) {
            const std::size_t chunks =
                std::clamp<std::size_t>(count / min_elements, 1, uncalibrated_max_chunks);
            per_chunk = ceil_div(count, chunks);
            small = large = 0;
            how = "auto: input too small to measure; " + std::to_string(chunks) + " chunks";
        } else {
            first_pass = detail::even_chunks(0, calibration_chunks_per_size * small, small);
            auto more = detail::even_chunks(calibration_chunks_per_size * small,
                                            calibration_chunks_per_size * large, large);
            first_pass.insert(first_pass.end(), more.begin(), more.end());
            more = detail::even_chunks(calibration, bridge_chunks * large, large);
            first_pass.insert(first_pass.end(), more.begin(), more.end());
            per_chunk = large;  // for now; the model picks the rest's chunk size
        }
    }
    // Buffers for chunks of up to `elements`: device slots, and pinned staging for a pageable
    // host side (two more than the device depth, so the host's memcpy can run two chunks ahead).
    const auto prepare = [&](std::size_t elements) {
        ensure_device_slots(s.device, s.device_slots, s.device_slot_bytes, s.depth,
                            elements * in_elem, elements * out_elem, s.options.in_place);
        if (!input.pinned)
            ensure_staging(s.device, s.staging[0], s.staging_bytes[0], s.depth + 2,
                           elements * in_elem);
        if (!output.pinned)
            ensure_staging(s.device, s.staging[1], s.staging_bytes[1], s.depth + 2,
                           elements * out_elem);
        s.input_end = detail::HostEnd{static_cast<unsigned char*>(input.data), in_elem,
                                      input.pinned ? std::vector<detail::HostSlot>{}
                                                   : s.staging[0]};
        s.output_end = detail::HostEnd{static_cast<unsigned char*>(output.data), out_elem,
                                       output.pinned ? std::vector<detail::HostSlot>{}
                                                     : s.staging[1]};
    };
    prepare(per_chunk);

    std::vector<detail::ChunkRecord> records;
    detail::ChunkScheduler scheduler(s.queues, s.device_slots, s.input_end, s.output_end,
                                     compute);
    if (!first_pass.empty()) {
        scheduler.run(first_pass, records, false);
        const auto fitted = detail::fit_stages(records, small, large, calibration_chunks_per_size);
        const std::size_t done = first_pass.back().offset + first_pass.back().count;
        const std::size_t rest = count - done;
        const std::size_t most = std::clamp<std::size_t>(rest / min_elements, 1, max_chunks);
        std::size_t chunks = detail::best_chunk_count(
            fitted.stages, s.mode == PipelineMode::two_queues, rest, most);
        // However cheap the model finds large chunks, keep each one's memory modest.
        chunks = std::max(chunks, ceil_div(rest * std::max(in_elem, out_elem), max_chunk_bytes));
        per_chunk = ceil_div(rest, chunks);
        if (per_chunk > large) {
            // Larger buffers: the ones in use must drain first (a bubble, but only for inputs
            // whose best chunks are larger than the calibration's).
            scheduler.run({}, records);
            for (Queue* queue : {&s.queues.upload, &s.queues.compute, &s.queues.download})
                queue->finish();
            prepare(per_chunk);
        }
        how = "auto: " + fitted.describe() + "; chose " + std::to_string(chunks) +
              " chunks of " + std::to_string(per_chunk) + " elements for the other " +
              std::to_string(rest);
        scheduler.run(detail::even_chunks(done, rest, per_chunk), records);
    } else {
        scheduler.run(detail::even_chunks(0, count, per_chunk), records);
    }
    for (Queue* queue : {&s.queues.upload, &s.queues.compute, &s.queues.download})
        queue->finish();

    PipelineReport report = detail::make_report(records, s.mode);
    report.depth = s.depth;
    report.chunk_elements = per_chunk;
    report.chunking = how;
    report.device_bytes = s.depth * (s.device_slot_bytes[0] +
                                     (s.options.in_place ? 0 : s.device_slot_bytes[1]));
    report.staged_input = !s.input_end.staging.empty();
    report.staged_output = !s.output_end.staging.empty();
    report.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                               started)
                         .count();
    return report;
}

}  // namespace dualrt
