// BackendImpl: the OpenCL backend as a whole, i.e. every usable device of every platform.
#pragma once

#include "backend/backend.hpp"

#include <memory>
#include <string>
#include <vector>

namespace dualrt::opencl {

// Created once by the module's create() and owned by the core's registry. Holds the devices, each
// of which owns its context; nothing here holds the platforms' resources. Thread-safe (immutable
// after creation).
class BackendImpl final : public backend::BackendImpl {
public:
    // Lists the platforms of the ICD loader and their devices, in platform order (platform 0's
    // devices first), skipping devices that are unavailable or older than OpenCL 1.2 (logged).
    // Creates no context. Throws Errc::unavailable with the reason when there is no platform or
    // no usable device.
    static std::unique_ptr<BackendImpl> create();

    // "OpenCL: 1 platform (Portable Computing Language 3.0 PoCL 3.1+debian ...)"
    std::string version() const override;
    const std::vector<std::shared_ptr<backend::DeviceImpl>>& devices() override {
        return devices_;
    }
    // A device in the application's cl_context, with one of devices()' cl_device_ids (wrap.cpp).
    std::shared_ptr<backend::DeviceImpl> wrap_device(NativeHandle context, NativeHandle device,
                                                     Ownership ownership) override;

private:
    BackendImpl(std::vector<std::string> platforms,
                std::vector<std::shared_ptr<backend::DeviceImpl>> devices);

    std::vector<std::string> platforms_;  // "NAME VERSION" per platform, for version()
    std::vector<std::shared_ptr<backend::DeviceImpl>> devices_;
};

}  // namespace dualrt::opencl
