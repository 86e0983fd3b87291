// What the two ways of recording on OpenCL share (recording.hpp): the backend's objects behind
// the core's, a check of C calls, launch ranges, and the kernel objects a recording keeps.
// Internal to recording.cpp, command_buffers.cpp and command_lists.cpp.
#pragma once

#include "buffer.hpp"
#include "check.hpp"
#include "device.hpp"
#include "program.hpp"
#include "queue.hpp"
#include "recording.hpp"

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dualrt::opencl::recording {

inline BufferImpl& ours(backend::BufferImpl& buffer) { return static_cast<BufferImpl&>(buffer); }
inline HostBufferImpl& ours(backend::HostBufferImpl& buffer) {
    return static_cast<HostBufferImpl&>(buffer);
}
inline KernelState& state_of(backend::KernelImpl& kernel) {
    return static_cast<KernelImpl&>(kernel).state();
}

// Throws dualrt::Error for a failed C call; `context()` names what it was doing, built only then.
template <typename Context>
void check(cl_int status, const char* call, Context&& context) {
    if (status != CL_SUCCESS)
        raise_cl_error(cl::Error(status, call), call, context(), __FILE__, __LINE__,
                       CallKind::other);
}

// The ND-range of a launch, as OpenCL's C calls take it.
struct NDRange {
    cl_uint dims = 1;
    std::array<std::size_t, 3> global{1, 1, 1}, local{1, 1, 1};
    explicit NDRange(const backend::LaunchGeometry& geometry)
        : dims(static_cast<cl_uint>(geometry.dims)) {
        for (std::size_t d = 0; d < 3; ++d) {
            global[d] = geometry.global[d];
            local[d] = geometry.local[d];
        }
    }
};

// The kernel objects of a recording's launches, each with its arguments set once: one per kernel
// and argument list, so that launches that repeat their arguments (a loop of one kernel, a
// ping-pong of two buffers) share one, and no replay sets an argument. Command buffers need them
// too: PoCL 3.1 runs a recorded launch with the arguments its kernel object holds when the
// buffer runs, not those it held when the launch was recorded (the extension's rule).
class RecordedKernels {
public:
    explicit RecordedKernels(const DeviceImpl& device) : device_(device) {}

    // The recording's kernel object for `state` with `args` set, made on first use.
    cl_kernel with(KernelState& state, backend::KernelArgs args);

    // What the recording keeps for as long as it lives: the kernel objects and the sub-buffers
    // that pass their views.
    struct Kept {
        std::vector<cl::Kernel> kernels;
        std::vector<cl::Buffer> sub_buffers;
    };
    Kept take();

private:
    const DeviceImpl& device_;
    std::map<std::string, cl::Kernel> kernels_;  // by kernel and argument list
    std::vector<cl::Buffer> sub_buffers_;
};

// The recorders of the two paths (command_buffers.cpp, command_lists.cpp).
std::unique_ptr<backend::RecorderImpl> command_buffer_recorder(std::shared_ptr<DeviceImpl> device,
                                                               std::shared_ptr<QueueImpl> queue,
                                                               const CommandBufferApi& api);
std::unique_ptr<backend::RecorderImpl> command_list_recorder(std::shared_ptr<DeviceImpl> device);

}  // namespace dualrt::opencl::recording
