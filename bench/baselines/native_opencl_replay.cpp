// The native OpenCL side of replay_cost: launches of `empty` one by one with no event, and, where
// the device has cl_khr_command_buffer 0.9.0 (PoCL), the same launches recorded into a command
// buffer, as a hand-written program does it.
#include "native_common.hpp"
#include "native_opencl.hpp"

#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dualrt::bench::opencl {
namespace {

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

// The extension's entry points for `device`'s platform.
struct CommandBuffers {
    Create create;
    Finalize finalize;
    Release release;
    Enqueue enqueue;
    NDRange ndrange;
    explicit CommandBuffers(cl_device_id device) {
        cl_platform_id platform = nullptr;
        NATIVE_CL(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform,
                                  nullptr));
        const auto entry = [&](const char* name) {
            void* address = clGetExtensionFunctionAddressForPlatform(platform, name);
            if (address == nullptr) throw std::runtime_error(std::string(name) + " is missing");
            return address;
        };
        create = reinterpret_cast<Create>(entry("clCreateCommandBufferKHR"));
        finalize = reinterpret_cast<Finalize>(entry("clFinalizeCommandBufferKHR"));
        release = reinterpret_cast<Release>(entry("clReleaseCommandBufferKHR"));
        enqueue = reinterpret_cast<Enqueue>(entry("clEnqueueCommandBufferKHR"));
        ndrange = reinterpret_cast<NDRange>(entry("clCommandNDRangeKernelKHR"));
    }
};

// How `launches` enqueues a launch: at once on a queue, or recorded into a command buffer.
using Launch = std::function<void(cl_kernel, cl_uint, const std::size_t*, const std::size_t*)>;

// `launch_all(launch)` enqueued one by one on `queue` (no event), and, where `device` has
// command buffers, recorded into one (each launch after the previous one's sync point) and
// replayed, per launch.
template <typename Prepare, typename LaunchAll>
ReplayCost plain_and_command_buffer(cl_command_queue queue, cl_device_id device, int launches,
                                    int repetitions, Prepare&& prepare, LaunchAll&& launch_all) {
    const auto finish = [&] { NATIVE_CL(clFinish(queue)); };
    const Launch at_once = [&](cl_kernel kernel, cl_uint dims, const std::size_t* global,
                               const std::size_t* local) {
        NATIVE_CL(clEnqueueNDRangeKernel(queue, kernel, dims, nullptr, global, local, 0, nullptr,
                                         nullptr));
    };
    ReplayCost cost;
    const detail::BatchTimes plain = detail::time_batches(
        launches, repetitions, prepare, [&] { launch_all(at_once); }, finish);
    cost.plain_enqueue_us = plain.enqueue_us;
    cost.plain_us = plain.total_us;
    if (!has_command_buffers(device)) return cost;

    const CommandBuffers api(device);
    cl_int status = CL_SUCCESS;
    void* buffer = api.create(1, &queue, nullptr, &status);
    NATIVE_CL(status);
    std::optional<cl_uint> last;
    launch_all([&](cl_kernel kernel, cl_uint dims, const std::size_t* global,
                   const std::size_t* local) {
        cl_uint point = 0;
        NATIVE_CL(api.ndrange(buffer, nullptr, nullptr, kernel, dims, nullptr, global, local,
                              last ? 1 : 0, last ? &*last : nullptr, &point, nullptr));
        last = point;
    });
    NATIVE_CL(api.finalize(buffer));
    const detail::BatchTimes replayed = detail::time_batches(
        launches, repetitions, prepare,
        [&] { NATIVE_CL(api.enqueue(0, nullptr, buffer, 0, nullptr, nullptr)); }, finish);
    NATIVE_CL(api.release(buffer));
    cost.replay_enqueue_us = replayed.enqueue_us;
    cost.replay_us = replayed.total_us;
    cost.replay = "cl_khr_command_buffer 0.9.0 (each launch after the previous one's sync point)";
    return cost;
}

}  // namespace

ReplayCost NativeOpenCL::replay_cost(int launches, int repetitions) {
    detail::check_launch_arguments("opencl", launches, repetitions);
    const std::size_t global = empty_global_size;
    const std::size_t local = empty_local_size;
    const cl_kernel kernel = empty_.get();
    const cl_uint unused = 0;
    NATIVE_CL(clSetKernelArg(kernel, 0, sizeof unused, &unused));
    return plain_and_command_buffer(plain_.get(), device_, launches, repetitions, [] {},
                                    [&](const Launch& launch) {
                                        for (int i = 0; i < launches; ++i)
                                            launch(kernel, 1, &global, &local);
                                    });
}

ReplayCost NativeOpenCL::jacobi_replay_cost(const JacobiJob& job) {
    detail::check_launch_arguments("opencl", job.steps, job.repetitions);
    cl_command_queue queue = plain_.get();
    const std::size_t bytes = std::size_t{job.width} * job.height * sizeof(float);
    const MemObject first = create_buffer(context_.get(), CL_MEM_READ_WRITE, bytes);
    const MemObject second = create_buffer(context_.get(), CL_MEM_READ_WRITE, bytes);
    const cl_mem grids[2] = {first.get(), second.get()};
    const cl_uint width = job.width, first_row = 1, rows = job.height - 2;
    // One kernel object per direction, its grids set once, as a hand-written solver sets them.
    for (int k = 0; k < 2; ++k) {
        const cl_kernel kernel = jacobi_[k].get();
        NATIVE_CL(clSetKernelArg(kernel, 0, sizeof(cl_mem), &grids[k]));
        NATIVE_CL(clSetKernelArg(kernel, 1, sizeof(cl_mem), &grids[1 - k]));
        NATIVE_CL(clSetKernelArg(kernel, 2, sizeof width, &width));
        NATIVE_CL(clSetKernelArg(kernel, 3, sizeof first_row, &first_row));
        NATIVE_CL(clSetKernelArg(kernel, 4, sizeof rows, &rows));
    }
    const std::size_t global[2] = {job.width, rows};
    const std::size_t local[2] = {jacobi_local[0], jacobi_local[1]};
    const auto reset = [&] {
        for (cl_mem grid : grids)
            NATIVE_CL(clEnqueueWriteBuffer(queue, grid, CL_TRUE, 0, bytes, job.grid, 0, nullptr,
                                           nullptr));
    };
    ReplayCost cost = plain_and_command_buffer(
        queue, device_, job.steps, job.repetitions, reset, [&](const Launch& launch) {
            for (int step = 0; step < job.steps; ++step)
                launch(jacobi_[step % 2].get(), 2, global, local);
        });
    // The last batch timed (plain or replayed) left its result in the first grid.
    NATIVE_CL(clEnqueueReadBuffer(queue, grids[0], CL_TRUE, 0, bytes, job.result, 0, nullptr,
                                  nullptr));
    return cost;
}

}  // namespace dualrt::bench::opencl
