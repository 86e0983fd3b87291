// Enumerating OpenCL platforms and devices into the backend's device list.
#include "backend.hpp"

#include "check.hpp"
#include "device.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace dualrt::opencl {
namespace {

// Platforms are listed before any device work, hence no device in these contexts.
const std::string listing_context = "listing the OpenCL platforms and devices";

[[noreturn]] void raise_unavailable(cl_int code, std::string detail) {
    ErrorInfo info;
    info.errc = Errc::unavailable;
    info.backend = "opencl";
    info.call = code == CL_PLATFORM_NOT_FOUND_KHR ? "clGetPlatformIDs" : "clGetDeviceIDs";
    info.code = code;
    info.code_name = error_name(code);
    info.context = listing_context;
    info.detail = std::move(detail);
    detail::raise(std::move(info));
}

[[noreturn]] void raise_no_platform(cl_int code) {
    // ocl-icd and Khronos' loader read OCL_ICD_VENDORS instead of /etc/OpenCL/vendors when set.
    const char* vendors = std::getenv("OCL_ICD_VENDORS");
    const std::string where = vendors != nullptr
                                  ? std::string("OCL_ICD_VENDORS=") + vendors
                                  : std::string("/etc/OpenCL/vendors/*.icd");
    raise_unavailable(code,
                      "no OpenCL platform found: no ICD is installed (on Debian: apt-get install "
                      "pocl-opencl-icd for the CPU, or your GPU vendor's OpenCL driver); the ICD "
                      "loader looked in " + where +
                          " (an .icd file whose driver library fails to load counts as absent)");
}

std::vector<cl::Platform> list_platforms() {
    std::vector<cl::Platform> platforms;
    try {
        cl::Platform::get(&platforms);
    } catch (const cl::Error& error) {
        // The ICD loader answers CL_PLATFORM_NOT_FOUND_KHR when no vendor ICD is installed.
        if (error.err() == CL_PLATFORM_NOT_FOUND_KHR) raise_no_platform(error.err());
        raise_cl_error(error, "cl::Platform::get(&platforms)", listing_context, __FILE__, __LINE__,
                       CallKind::other);
    }
    if (platforms.empty()) raise_no_platform(CL_PLATFORM_NOT_FOUND_KHR);
    return platforms;
}

// "Portable Computing Language 3.0 PoCL 3.1+debian ..." from the name and "OpenCL 3.0 ...".
std::string describe_platform(const std::string& name, std::string version) {
    const std::string prefix = "OpenCL ";
    if (version.rfind(prefix, 0) == 0) version.erase(0, prefix.size());
    std::string text = name + " " + version;
    for (auto twice = text.find("  "); twice != std::string::npos; twice = text.find("  ")) {
        text.erase(twice, 1);
    }
    return text;
}

// Why a device cannot be used, or "" when it can.
std::string unusable_because(const cl::Device& device, const std::string& context) {
    if (CL_CHECK(device.getInfo<CL_DEVICE_AVAILABLE>(), context) == CL_FALSE) {
        return "not available (CL_DEVICE_AVAILABLE is false)";
    }
    const std::string version = CL_CHECK(device.getInfo<CL_DEVICE_VERSION>(), context);
    int major = 0;
    int minor = 0;
    if (std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor) != 2) {
        return "unreadable CL_DEVICE_VERSION '" + version + "'";
    }
    if (major < 1 || (major == 1 && minor < 2)) {
        return "'" + version + "': dualrt needs OpenCL 1.2 or later";
    }
    return "";
}

// What enumeration found so far, and why anything was left out.
struct Enumeration {
    std::vector<std::string> platforms;  // descriptions, for version() and errors
    std::vector<std::shared_ptr<backend::DeviceImpl>> devices;
    std::string skipped;  // "; platform 'X': reason" per platform or device left out

    void skip(const std::string& what, const std::string& reason) {
        detail::log().warn("OpenCL: skipping {}: {}", what, reason);
        skipped += "; " + what + ": " + reason;
    }

    void add_device(const cl::Device& device, const std::string& platform_name) {
        const std::string what = "a device of platform '" + platform_name + "'";
        std::string reason;
        try {
            reason = unusable_because(device, "checking " + what);
            if (reason.empty()) {
                const int index = static_cast<int>(devices.size());
                devices.push_back(std::make_shared<DeviceImpl>(device, platform_name, index));
                detail::log().debug("OpenCL: device {}: '{}' on '{}'", index,
                                    devices.back()->info().name, platform_name);
                return;
            }
        } catch (const dualrt::Error& error) {
            reason = error.what();
        }
        skip(what, reason);
    }

    // One broken vendor driver must not hide the devices of the others: its failures are
    // recorded and enumeration goes on.
    void add_platform(const cl::Platform& platform, std::size_t index) {
        std::string name = "#" + std::to_string(index);
        std::vector<cl::Device> found;
        try {
            name = CL_CHECK(platform.getInfo<CL_PLATFORM_NAME>(), listing_context);
            const std::string version =
                CL_CHECK(platform.getInfo<CL_PLATFORM_VERSION>(), listing_context);
            platforms.push_back(describe_platform(name, version));
            // An empty list (CL_DEVICE_NOT_FOUND) is not an error in CLHPP.
            CL_CHECK(platform.getDevices(CL_DEVICE_TYPE_ALL, &found),
                     "listing the devices of OpenCL platform '" + name + "'");
        } catch (const dualrt::Error& error) {
            skip("platform '" + name + "'", error.what());
            return;
        }
        if (found.empty()) skipped += "; platform '" + name + "': no devices";
        for (const cl::Device& device : found) add_device(device, name);
    }
};

}  // namespace

BackendImpl::BackendImpl(std::vector<std::string> platforms,
                         std::vector<std::shared_ptr<backend::DeviceImpl>> devices)
    : platforms_(std::move(platforms)), devices_(std::move(devices)) {}

std::unique_ptr<BackendImpl> BackendImpl::create() {
    Enumeration found;
    const std::vector<cl::Platform> platforms = list_platforms();
    for (std::size_t i = 0; i < platforms.size(); ++i) found.add_platform(platforms[i], i);

    if (found.devices.empty()) {
        std::string names;
        for (const auto& description : found.platforms) {
            names += (names.empty() ? "'" : ", '") + description + "'";
        }
        raise_unavailable(CL_DEVICE_NOT_FOUND,
                          "OpenCL platforms found but no usable device: " + names + found.skipped);
    }
    return std::unique_ptr<BackendImpl>(
        new BackendImpl(std::move(found.platforms), std::move(found.devices)));
}

std::string BackendImpl::version() const {
    std::string text = "OpenCL: " + std::to_string(platforms_.size()) +
                       (platforms_.size() == 1 ? " platform (" : " platforms (");
    for (std::size_t i = 0; i < platforms_.size(); ++i) {
        text += (i == 0 ? "" : ", ") + platforms_[i];
    }
    return text + ")";
}

}  // namespace dualrt::opencl
