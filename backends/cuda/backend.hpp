// BackendImpl: the CUDA backend as a whole, i.e. every CUDA device the driver shows.
#pragma once

#include "backend/backend.hpp"

#include <memory>
#include <string>
#include <vector>

namespace dualrt::cuda {

// Created once by the module's create() and owned by the core's registry. Holds the devices,
// each of which retains its primary context on first use. Thread-safe (immutable after creation).
class BackendImpl final : public backend::BackendImpl {
public:
    // Initialises the driver API and lists the devices in the driver's order (which
    // CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER shape). Creates no context. Throws
    // Errc::unavailable with the reason when there is no usable device or the driver is older
    // than the CUDA version this module was built with.
    static std::unique_ptr<BackendImpl> create();

    // "CUDA driver 13.0 (580.159.04), CUDA Toolkit 13.0 at build time"
    std::string version() const override { return version_; }
    const std::vector<std::shared_ptr<backend::DeviceImpl>>& devices() override {
        return devices_;
    }
    // A device in the application's CUcontext of one of devices()' CUdevices (wrap.cpp).
    std::shared_ptr<backend::DeviceImpl> wrap_device(NativeHandle context, NativeHandle device,
                                                     Ownership ownership) override;

private:
    BackendImpl(std::string version, int driver_version,
                std::vector<std::shared_ptr<backend::DeviceImpl>> devices);

    std::string version_;
    int driver_version_;  // cuDriverGetVersion, for the info of wrapped devices
    std::vector<std::shared_ptr<backend::DeviceImpl>> devices_;
};

}  // namespace dualrt::cuda
