// A Pipeline over several devices: one driver per device, each with the device's own
// OneDevicePipeline. A run dealt to every device runs the single-device schedule
// (ChunkScheduler) on each device's parts, on a thread per device (kept between runs), over the
// chunks the shared dealer hands it, and puts the run's report together from theirs; a run that
// goes to the fastest device alone is that device's OneDevicePipeline's run. Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include "multi/chunk_dealer.hpp"
#include "multi/device_threads.hpp"
#include "multi/mix_choice.hpp"
#include "one_device_pipeline.hpp"
#include "run/chunk_scheduler.hpp"
#include "run/run_report.hpp"

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dualrt::detail {

// Throws Errc::invalid_argument for an empty list, an empty Device or a device listed twice.
void check_device_list(const std::vector<Device>& devices, const char* operation);

class MultiDevicePipeline {
public:
    // `first`: the Pipeline's part for devices[0], whose options, mode and depth the others
    // get (with queues of their own, made here).
    MultiDevicePipeline(std::vector<Device> devices, std::unique_ptr<OneDevicePipeline> first);
    ~MultiDevicePipeline();

    const std::vector<Device>& devices() const { return devices_; }

    // Pipeline::run over every device, or the fastest alone (MixChoice); `started` is when
    // Pipeline::run began. An error from any device stops the dealing; every device's enqueued
    // work drains before it is rethrown as a dualrt::Error naming the device.
    PipelineReport run(const HostSide* inputs, std::size_t input_count, const HostSide* outputs,
                       std::size_t output_count, const Halo& halo, const ChunkFunction& compute,
                       std::chrono::steady_clock::time_point started);

private:
    struct Driver {
        std::unique_ptr<OneDevicePipeline> one;  // its queues, buffers, rings and models
        std::string label;  // "'pthread-...' (opencl device 1)"
        std::string track;  // "opencl 1", prefixing its timeline tracks
        std::map<std::string, double> rates;  // elements per ms per layout, from earlier runs
    };
    // A run dealt to every device; `key`: the arrays' layout_key; `prior_rates`: each device's
    // elements per ms in earlier runs.
    PipelineReport run_together(const std::string& key,
                                const std::vector<double>& prior_rates,
                                const RunArrays& arrays, const Halo& halo,
                                const ChunkFunction& compute, const RunFacts& facts,
                                std::chrono::steady_clock::time_point started);
    // What device d's part of a dealt run reports and teaches (made on its own thread).
    struct DeviceOutcome {
        ResolvedTiming timing;
        PipelineReport report;  // as a Pipeline of the device alone reports its chunks
        std::string lanes;      // how it used fewer lanes than it has, in words ("" if not),
                                // set by the caller of learn_from
    };
    // Resolves device d's timing of its chunks `mine`, teaches its planner and rates, and makes
    // its report. Touches driver d only, so the devices do this at once.
    DeviceOutcome learn_from(std::size_t d, const std::string& key, const RunArrays& arrays,
                             const RunFacts& facts, const QueueUse& use,
                             const OneDevicePipeline::Lanes& used, RunTiming& timing,
                             const std::vector<ChunkExtent>& mine);
    // The run given to driver `d` alone, reported as a run over several devices; `why` it went
    // alone, in words.
    PipelineReport run_alone(std::size_t d, const std::string& key, const RunArrays& arrays,
                             const Halo& halo, const ChunkFunction& compute,
                             const RunFacts& facts, const std::string& why,
                             std::chrono::steady_clock::time_point started);

    std::vector<Device> devices_;
    std::vector<Driver> drivers_;
    PipelineOptions options_;
    PipelineMode mode_;
    std::size_t depth_;
    std::map<std::string, MixChoice> mixes_;  // per layout: every device, or the fastest alone
    std::unique_ptr<DeviceThreads> threads_;  // made by the first run dealt to every device
};

}  // namespace dualrt::detail
