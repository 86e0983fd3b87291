// The native OpenCL side of replay_cost: launches of `empty` one by one with no event, and, where
// the device has cl_khr_command_buffer 0.9.0 (PoCL), the same launches recorded into a command
// buffer, as a hand-written program does it.
#include "native_common.hpp"
#include "native_opencl.hpp"

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace dualrt::bench::opencl {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
}

// The extension's entry points as version 0.9.0 types them, spelt here so that the module
// builds with headers of any version (later ones add a properties parameter to each command).
using Create = void*(CL_API_CALL*)(cl_uint, const cl_command_queue*, const cl_ulong*, cl_int*);
using Finalize = cl_int(CL_API_CALL*)(void*);
using Release = cl_int(CL_API_CALL*)(void*);
using Enqueue = cl_int(CL_API_CALL*)(cl_uint, cl_command_queue*, void*, cl_uint, const cl_event*,
                                     cl_event*);
using NDRange = cl_int(CL_API_CALL*)(void*, cl_command_queue, const cl_ulong*, cl_kernel, cl_uint,
                                     const std::size_t*, const std::size_t*, const std::size_t*,
                                     cl_uint, const cl_uint*, cl_uint*, void*);

// Whether the device lists cl_khr_command_buffer at version 0.9.0. The module targets OpenCL
// 1.2, so the 3.0 query that gives extension versions is spelt out here.
bool has_command_buffers(cl_device_id device) {
    constexpr cl_device_info extensions_with_version = 0x1060;
    struct NameVersion {
        cl_uint version;
        char name[64];
    };
    std::size_t bytes = 0;
    if (clGetDeviceInfo(device, extensions_with_version, 0, nullptr, &bytes) != CL_SUCCESS)
        return false;
    std::vector<NameVersion> list(bytes / sizeof(NameVersion));
    NATIVE_CL(clGetDeviceInfo(device, extensions_with_version, bytes, list.data(), nullptr));
    const cl_uint version_0_9_0 = 9u << 12;  // CL_MAKE_VERSION(0, 9, 0)
    for (const auto& entry : list)
        if (std::strcmp(entry.name, "cl_khr_command_buffer") == 0)
            return entry.version == version_0_9_0;
    return false;
}

}  // namespace

ReplayCost NativeOpenCL::replay_cost(int launches, int repetitions) {
    detail::check_launch_arguments("opencl", launches, repetitions);
    const std::size_t global = empty_global_size;
    const std::size_t local = empty_local_size;
    const cl_kernel kernel = empty_.get();
    const cl_uint unused = 0;
    NATIVE_CL(clSetKernelArg(kernel, 0, sizeof unused, &unused));
    cl_command_queue queue = plain_.get();
    const auto launch_all = [&] {
        for (int i = 0; i < launches; ++i)
            NATIVE_CL(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0,
                                             nullptr, nullptr));
    };
    const auto batch = [&](auto&& enqueue, double& enqueue_us, double& total_us) {
        const auto begin = Clock::now();
        enqueue();
        const auto enqueued = Clock::now();
        NATIVE_CL(clFinish(queue));
        enqueue_us = microseconds(enqueued - begin) / launches;
        total_us = microseconds(Clock::now() - begin) / launches;
    };

    ReplayCost cost;
    std::vector<double> plain_enqueue, plain, replay_enqueue, replayed;
    double enqueue_us = 0.0, total_us = 0.0;
    batch(launch_all, enqueue_us, total_us);  // warm-up
    for (int r = 0; r < repetitions; ++r) {
        batch(launch_all, enqueue_us, total_us);
        plain_enqueue.push_back(enqueue_us);
        plain.push_back(total_us);
    }
    cost.plain_enqueue_us = detail::median(std::move(plain_enqueue));
    cost.plain_us = detail::median(std::move(plain));
    if (!has_command_buffers(device_)) return cost;

    cl_platform_id platform = nullptr;
    NATIVE_CL(clGetDeviceInfo(device_, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr));
    const auto entry = [&](const char* name) {
        void* address = clGetExtensionFunctionAddressForPlatform(platform, name);
        if (address == nullptr) throw std::runtime_error(std::string(name) + " is missing");
        return address;
    };
    const auto create = reinterpret_cast<Create>(entry("clCreateCommandBufferKHR"));
    const auto finalize = reinterpret_cast<Finalize>(entry("clFinalizeCommandBufferKHR"));
    const auto release = reinterpret_cast<Release>(entry("clReleaseCommandBufferKHR"));
    const auto enqueue = reinterpret_cast<Enqueue>(entry("clEnqueueCommandBufferKHR"));
    const auto ndrange = reinterpret_cast<NDRange>(entry("clCommandNDRangeKernelKHR"));
    cl_int status = CL_SUCCESS;
    void* buffer = create(1, &queue, nullptr, &status);
    NATIVE_CL(status);
    cl_uint last = 0;
    for (int i = 0; i < launches; ++i) {
        cl_uint point = 0;
        NATIVE_CL(ndrange(buffer, nullptr, nullptr, kernel, 1, nullptr, &global, &local,
                          i > 0 ? 1 : 0, i > 0 ? &last : nullptr, &point, nullptr));
        last = point;
    }
    NATIVE_CL(finalize(buffer));
    const auto replay = [&] { NATIVE_CL(enqueue(0, nullptr, buffer, 0, nullptr, nullptr)); };
    batch(replay, enqueue_us, total_us);  // warm-up
    for (int r = 0; r < repetitions; ++r) {
        batch(replay, enqueue_us, total_us);
        replay_enqueue.push_back(enqueue_us);
        replayed.push_back(total_us);
    }
    NATIVE_CL(release(buffer));
    cost.replay_enqueue_us = detail::median(std::move(replay_enqueue));
    cost.replay_us = detail::median(std::move(replayed));
    cost.replay = "cl_khr_command_buffer 0.9.0 (each launch after the previous one's sync point)";
    return cost;
}

}  // namespace dualrt::bench::opencl
