// Programs from and to the on-disk binary cache: the OpenCL calls around binary_cache.cpp.
#include "cached_build.hpp"

#include "check.hpp"
#include "support/log.hpp"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace dualrt::opencl {
namespace {

// What the key needs to know about the device, straight from the driver: a new driver or another
// device must never be handed a binary that an older one wrote.
BinaryCacheInputs inputs_for(const cl::Device& device, const std::string& source,
                             const std::string& options) {
    BinaryCacheInputs inputs;
    inputs.source = source;
    inputs.options = options;
    inputs.device_name = device.getInfo<CL_DEVICE_NAME>();
    inputs.device_version = device.getInfo<CL_DEVICE_VERSION>();
    inputs.driver_version = device.getInfo<CL_DRIVER_VERSION>();
    const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
    inputs.platform_name = platform.getInfo<CL_PLATFORM_NAME>();
    inputs.platform_version = platform.getInfo<CL_PLATFORM_VERSION>();
    return inputs;
}

// The specification promises kernel argument information (built with -cl-kernel-arg-info) only
// for programs created from source; a driver may drop it from programs created from binaries.
// dualrt's launch checks read it (program.cpp, read_params), so a binary that loses it is no
// good: "" when the program keeps it, else why not.
std::string missing_argument_info(cl::Program& program) {
    std::vector<cl::Kernel> kernels;
    program.createKernels(&kernels);
    for (const cl::Kernel& kernel : kernels) {
        if (kernel.getInfo<CL_KERNEL_NUM_ARGS>() == 0) continue;
        try {
            static_cast<void>(kernel.getArgInfo<CL_KERNEL_ARG_ADDRESS_QUALIFIER>(0));
            return {};
        } catch (const cl::Error& error) {
            if (error.err() != CL_KERNEL_ARG_INFO_NOT_AVAILABLE) throw;
            return "the driver gives no kernel argument information for programs made from "
                   "binaries, and dualrt's argument checks need it; the cache is not used for "
                   "this device for the rest of this process";
        }
    }
    return {};
}

// Devices whose driver drops argument information from binaries (above): after the first such
// warning, their builds skip the cache, so a process pays for one useless binary load at most.
std::mutex no_binaries_mutex;
std::vector<cl_device_id> no_binaries_devices;

bool cache_useless_for(cl_device_id device) {
    std::lock_guard<std::mutex> lock(no_binaries_mutex);
    return std::find(no_binaries_devices.begin(), no_binaries_devices.end(), device) !=
           no_binaries_devices.end();
}
void mark_cache_useless_for(cl_device_id device) {
    std::lock_guard<std::mutex> lock(no_binaries_mutex);
    no_binaries_devices.push_back(device);
}

std::string describe_cl_error(const cl::Error& error) {
    return std::string(error.what()) + " returned " + error_name(error.err()) + " (" +
           std::to_string(error.err()) + ")";
}

}  // namespace

CachedBuild::CachedBuild(const cl::Device& device, const std::string& source,
                         const std::string& options)
    : device_(device), options_(options) {
    if (cache_useless_for(device_())) return;
    try {
        entry_ = BinaryCacheEntry::open(binary_cache_key(inputs_for(device_, source, options_)));
    } catch (const cl::Error& error) {
        detail::log().warn("OpenCL program cache: not used, the device query {}",
                           describe_cl_error(error));
    }
}

std::optional<cl::Program> CachedBuild::load(const cl::Context& context) {
    if (!entry_) return std::nullopt;
    std::optional<std::vector<unsigned char>> binary = entry_->read();
    if (!binary) return std::nullopt;
    const std::vector<cl::Device> devices{device_};
    try {
        std::vector<cl_int> status;
        cl::Program program(context, devices, cl::Program::Binaries{std::move(*binary)}, &status);
        if (status.size() != 1 || status[0] != CL_SUCCESS) {
            entry_->reject(std::string("the driver refused the binary: status ") +
                           (status.empty() ? std::string("missing") : error_name(status[0])));
            return std::nullopt;
        }
        program.build(devices, options_.c_str());
        if (const std::string why = missing_argument_info(program); !why.empty()) {
            mark_cache_useless_for(device_());
            entry_->reject(why);
            entry_.reset();  // and store() leaves the entry alone
            return std::nullopt;
        }
        detail::log().debug("OpenCL program cache: hit {}", entry_->path());
        return program;
    } catch (const cl::BuildError& error) {
        std::string log;
        for (const auto& device_log : error.getBuildLog()) log += device_log.second;
        entry_->reject("building the program from the binary failed: " + describe_cl_error(error) +
                       (log.empty() ? "" : "; build log: " + log));
    } catch (const cl::Error& error) {
        entry_->reject("the driver refused the binary: " + describe_cl_error(error));
    }
    return std::nullopt;
}

void CachedBuild::store(const cl::Program& program) noexcept {
    if (!entry_) return;
    try {
        // One device per program (build_program builds for the device alone), so one binary.
        const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
        if (binaries.size() != 1 || binaries[0].empty()) {
            detail::log().debug("OpenCL program cache: no binary from the driver; not stored {}",
                                entry_->path());
            return;
        }
        entry_->write(binaries[0]);
    } catch (const cl::Error& error) {
        detail::log().info("OpenCL program cache: not stored {}: reading the binary {}",
                           entry_->path(), describe_cl_error(error));
    } catch (...) {  // out of memory copying the binary: the program works, the cache waits
    }
}

}  // namespace dualrt::opencl
