// A Pipeline over several devices: one driver per device, each running the single-device
// schedule (ChunkScheduler) on its own thread over the chunks the shared dealer hands it, and
// the run's report put together from theirs. Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include "pipeline_dispatch.hpp"
#include "pipeline_model.hpp"
#include "pipeline_schedule.hpp"
#include "pipeline_slots.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace dualrt::detail {

// Throws Errc::invalid_argument for an empty list, an empty Device or a device listed twice.
void check_device_list(const std::vector<Device>& devices, const char* operation);

class DeviceDrivers {
public:
    // `first_queues`: the queues already made for devices[0]; the others get theirs here.
    DeviceDrivers(std::vector<Device> devices, PipelineQueues first_queues, std::size_t depth,
                  const PipelineOptions& options);
    ~DeviceDrivers();

    const std::vector<Device>& devices() const { return devices_; }

    // Pipeline::run over every device. An error from any of them stops the dealing; every
    // device's enqueued work drains before it is rethrown as a dualrt::Error naming the device.
    PipelineReport run(const HostSide* inputs, std::size_t input_count, const HostSide* outputs,
                       std::size_t output_count, const Halo& halo, const ChunkFunction& compute);

private:
    struct Driver {
        Device device;
        std::string label;  // "'pthread-...' (opencl device 1)"
        std::string track;  // "opencl 1", prefixing its timeline tracks
        PipelineQueues queues;
        DeviceSlots slots;
        StagingRings input_staging, output_staging;
        LayoutModels models;
        std::map<std::string, double> rates;  // elements per ms per layout, from earlier runs
    };
    std::vector<Device> devices_;
    std::vector<Driver> drivers_;
    PipelineOptions options_;
    PipelineMode mode_;
    std::size_t depth_;
    std::map<std::string, MixChoice> mixes_;  // per layout: every device, or the fastest alone
};

}  // namespace dualrt::detail
