// Pipeline: checks its options, resolves the mode and depth, and hands runs to the device's
// OneDevicePipeline (one_device_pipeline.cpp) or, over several devices, to MultiDevicePipeline
// (multi_device_pipeline.cpp).
#include <dualrt/pipeline.hpp>

#include "multi_device_pipeline.hpp"
#include "one_device_pipeline.hpp"
#include "run/run_checks.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <atomic>
#include <chrono>

namespace dualrt {
namespace {

// Lanes are queues: beyond this many, more would only cost device memory and scheduling.
constexpr std::size_t max_lanes = 16;
constexpr std::size_t default_lanes = 4;
// Three stage queues keep this many chunks in flight by default: one more than the stages, so an
// upload into a reused buffer need not wait for a download that ends just as it could start
// (with 3, any jitter of one stage stalled the other two, with small chunks).
constexpr std::size_t default_three_queue_depth = 4;

PipelineMode resolve(PipelineMode mode) {
    return mode == PipelineMode::automatic ? PipelineMode::lanes : mode;
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
    std::vector<Device> devices;  // every device
    // Runs: `one` with one device, `several` (which took `one` over for the first) beyond.
    std::unique_ptr<detail::OneDevicePipeline> one;
    std::unique_ptr<detail::MultiDevicePipeline> several;
    // Set while a run is in progress: a second run of the same Pipeline (from its own compute
    // function or another thread) would reuse the buffers and queues the first is using.
    std::atomic<bool> running{false};
    detail::RunArrays checked;  // a run's arrays, checked: storage kept from run to run
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
    const std::size_t fixed_queues = detail::queue_count(s.mode, 0);
    s.depth = options.depth != 0                          ? options.depth
              : s.mode == PipelineMode::lanes          ? default_lanes
              : s.mode == PipelineMode::three_queues   ? default_three_queue_depth
                                                       : fixed_queues;
    s.devices = {s.device};
    s.one = std::make_unique<detail::OneDevicePipeline>(s.device, s.options, s.mode, s.depth);
}

Pipeline::Pipeline(std::vector<Device> devices, PipelineOptions options)
    : Pipeline((detail::check_device_list(devices, "Pipeline"), devices.front()), options) {
    State& s = *state_;
    s.devices = std::move(devices);
    if (s.devices.size() > 1)
        s.several = std::make_unique<detail::MultiDevicePipeline>(s.devices, std::move(s.one));
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
    if (s.running.exchange(true))
        detail::raise_argument(
            "Pipeline::run",
            "this Pipeline is already running (run() was called from its own compute function or "
            "from another thread during a run); expected one run at a time per Pipeline: use a "
            "second Pipeline to run two jobs at once");
    struct RunEnds {
        std::atomic<bool>& running;
        ~RunEnds() { running = false; }
    } run_ends{s.running};
    PipelineReport report;
    if (s.several) {
        report = s.several->run(inputs, input_count, outputs, output_count, halo, compute,
                                started);
    } else {
        detail::checked_arrays(inputs, input_count, outputs, output_count, halo,
                               s.options.in_place, "Pipeline::run", s.checked);
        report = s.one->run(s.checked, halo, compute, started);
    }
    // Every run's plan and stages, for DUALRT_LOG=debug: what auto chose, run by run, in a
    // program that keeps only the figures it needs.
    if (detail::log().should_log(spdlog::level::debug))
        detail::log().debug("Pipeline run, {:.3f} ms on the host: {}", report.host_ms,
                            report.summary());
    return report;
}

}  // namespace dualrt
