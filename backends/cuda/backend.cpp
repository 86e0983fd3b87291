// Initialising the driver API and listing the CUDA devices.
#include "backend.hpp"

#include "check.hpp"
#include "device.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <cuda.h>

#include <cstdlib>
#include <utility>

namespace dualrt::cuda {
namespace {

const std::string listing_context = "initialising CUDA and listing its devices";

// "13.0" from 13000 (cuDriverGetVersion and CUDA_VERSION count this way).
std::string version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

[[noreturn]] void raise_unavailable(const char* call, CUresult code, std::string detail) {
    ErrorInfo info;
    info.errc = Errc::unavailable;
    info.backend = "cuda";
    info.call = call;
    info.code = static_cast<std::int64_t>(code);
    info.code_name = error_name(code);
    info.context = listing_context;
    info.detail = std::move(detail);
    detail::raise(std::move(info));
}

std::string visible_devices_note() {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    if (visible == nullptr) return "";
    return " (CUDA_VISIBLE_DEVICES=" + std::string(visible) + " limits which GPUs it shows)";
}

// cuInit, with the reasons users meet most often spelled out.
void initialise() {
    const CUresult code = cuInit(0);
    switch (code) {
    case CUDA_SUCCESS:
        return;
    case CUDA_ERROR_NO_DEVICE:
        raise_unavailable("cuInit(0)", code,
                          "the NVIDIA driver is installed but reports no CUDA-capable GPU" +
                              visible_devices_note() + "; nvidia-smi lists what it sees");
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        raise_unavailable("cuInit(0)", code,
                          "the NVIDIA kernel driver and its user-space library (libcuda.so.1) "
                          "do not match or are too old; reinstall the NVIDIA driver");
    default:
        raise_unavailable("cuInit(0)", code,
                          "the CUDA driver failed to initialise (is /dev/nvidia* accessible "
                          "to this user?)");
    }
}

int driver_version() {
    int version = 0;
    CU_CHECK(cuDriverGetVersion(&version), listing_context);
    // Modules and fatbins of a newer toolkit than the driver fail to load; say so up front.
    if (version / 1000 < CUDA_VERSION / 1000) {
        raise_unavailable("cuDriverGetVersion", CUDA_SUCCESS,
                          "the NVIDIA driver supports CUDA " + version_text(version) +
                              ", but dualrt's CUDA backend was built with CUDA Toolkit " +
                              version_text(CUDA_VERSION) + " and needs a driver for CUDA " +
                              std::to_string(CUDA_VERSION / 1000) + ".0 or newer");
    }
    return version;
}

}  // namespace

BackendImpl::BackendImpl(std::string version, int driver_version,
                         std::vector<std::shared_ptr<backend::DeviceImpl>> devices)
    : version_(std::move(version)), driver_version_(driver_version),
      devices_(std::move(devices)) {}

std::unique_ptr<BackendImpl> BackendImpl::create() {
    initialise();
    const int driver = driver_version();
    int count = 0;
    CU_CHECK(cuDeviceGetCount(&count), listing_context);
    if (count == 0) {
        raise_unavailable("cuDeviceGetCount", CUDA_SUCCESS,
                          "the NVIDIA driver reports no CUDA-capable GPU" + visible_devices_note());
    }
    std::vector<std::shared_ptr<backend::DeviceImpl>> devices;
    for (int index = 0; index < count; ++index) {
        CUdevice device = 0;
        CU_CHECK(cuDeviceGet(&device, index), listing_context);
        devices.push_back(std::make_shared<DeviceImpl>(device, index, driver));
        detail::log().debug("CUDA: device {}: '{}' ({})", index, devices.back()->info().name,
                            devices.back()->info().architecture);
    }
    const std::string version = "CUDA driver " + version_text(driver) + ", built with CUDA " +
                                "Toolkit " + version_text(CUDA_VERSION) + ", " +
                                std::to_string(count) + (count == 1 ? " device" : " devices");
    return std::unique_ptr<BackendImpl>(new BackendImpl(version, driver, std::move(devices)));
}

}  // namespace dualrt::cuda
