// The plain OpenCL baseline: what a careful OpenCL programmer writes with the C API, with its
// own queues, kernels, buffers and events in the context and on the device dualrt selected.
// Internal to libdualrt_native_opencl.so.
#pragma once

// The 1.2 API is all this needs (markers, sub-buffers, clCreateCommandQueue): it runs on every
// OpenCL dualrt supports, and no entry point used here is deprecated at this target.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "native_baseline.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dualrt::bench::opencl {

const char* error_name(cl_int code);

// Throws dualrt::Error naming the call and the error code's name for anything but CL_SUCCESS.
void check(cl_int code, const char* call, const std::string& context = {});
#define NATIVE_CL(call) ::dualrt::bench::opencl::check((call), #call)

// Owns one reference to an OpenCL object; Release is its clRelease* function.
template <typename T, cl_int (*Release)(T)>
class Owned {
public:
    Owned() = default;
    explicit Owned(T handle) : handle_(handle) {}
    ~Owned() { reset(); }
    Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    Owned& operator=(Owned&& other) noexcept {
        if (this != &other) {
            reset();
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;

    T get() const { return handle_; }
    T* out() {  // for calls that return a new object through a pointer (events)
        reset();
        return &handle_;
    }
    // A release cannot be reported from a destructor; a failure there would have shown in the
    // clFinish/clWaitForEvents that ended the work, so its result is deliberately dropped.
    void reset() {
        if (handle_ != nullptr) (void)Release(handle_);
        handle_ = nullptr;
    }

private:
    T handle_ = nullptr;
};

using ContextRef = Owned<cl_context, clReleaseContext>;
using ProgramRef = Owned<cl_program, clReleaseProgram>;
using KernelObject = Owned<cl_kernel, clReleaseKernel>;
using QueueObject = Owned<cl_command_queue, clReleaseCommandQueue>;
using MemObject = Owned<cl_mem, clReleaseMemObject>;
using EventObject = Owned<cl_event, clReleaseEvent>;

MemObject create_buffer(cl_context context, cl_mem_flags flags, std::size_t bytes);
QueueObject create_queue(cl_context context, cl_device_id device,
                         cl_command_queue_properties properties);

// Pinned host memory the standard OpenCL way: a CL_MEM_ALLOC_HOST_PTR buffer mapped once; copies
// go from and to its mapped pointer with clEnqueueWrite/ReadBuffer. Unmapped when destroyed, on
// the queue it was mapped on (which must outlive it).
class PinnedHost {
public:
    PinnedHost(cl_context context, cl_command_queue queue, std::size_t bytes);
    ~PinnedHost();
    PinnedHost(const PinnedHost&) = delete;
    PinnedHost& operator=(const PinnedHost&) = delete;
    unsigned char* data() const { return data_; }

private:
    cl_command_queue queue_;
    MemObject buffer_;
    unsigned char* data_ = nullptr;
};

// Host memory of either kind: pinned (PinnedHost) or pageable, a std::vector whose
// value-initialization touches every page before any timing, as an application's data would be.
class HostBlock {
public:
    HostBlock(HostMemory kind, std::size_t bytes, cl_context context, cl_command_queue queue);
    unsigned char* data() const { return data_; }

private:
    std::unique_ptr<PinnedHost> pinned_;
    std::vector<unsigned char> pageable_;
    unsigned char* data_ = nullptr;
};

// A marker at the current end of `queue` (with profiling on the queue, it carries timestamps).
EventObject marker(cl_command_queue queue);
void wait(const EventObject& event);
// Nanoseconds from the end of `start` to the end of `stop`, both on one device's clock.
std::uint64_t end_to_end_ns(const EventObject& start, const EventObject& stop);

class NativeOpenCL final : public NativeBaseline {
public:
    NativeOpenCL(cl_device_id device, cl_context context, cl_kernel empty, cl_kernel busy,
                 cl_kernel triad, cl_kernel stencil, cl_kernel jacobi);

    std::string describe() const override;
    double copy_ms(Direction direction, HostMemory host, std::size_t bytes,
                   int repetitions) override;
    LaunchCost launch_cost(int launches, int repetitions) override;
    double pipeline_ms(std::size_t elements, unsigned iterations, int chunks, int queues,
                       int repetitions) override;
    StreamTiming stream_triad(HostMemory host, const StreamJob& job) override;
    double stencil_ms(const StencilJob& job) override;  // native_opencl_stencil.cpp
    ReplayCost replay_cost(int launches, int repetitions) override;  // native_opencl_replay.cpp
    ReplayCost jacobi_replay_cost(const JacobiJob& job) override;      // native_opencl_replay.cpp

private:
    // Declared first, destroyed last: everything below belongs to the context.
    ContextRef context_;
    cl_device_id device_;
    KernelObject empty_;  // our own kernel objects: no argument state shared with dualrt
    KernelObject busy_;
    // triad, one kernel object per queue of the stream: each keeps its queue's buffers as
    // arguments, as a hand-written stream sets them once.
    std::vector<KernelObject> triads_;
    KernelObject stencil_;
    // jacobi_rows, one kernel object per direction of the ping-pong, their grids set once.
    KernelObject jacobi_[2];
    QueueObject plain_;      // no profiling: launches as a plain program makes them
    QueueObject timed_[3];   // with CL_QUEUE_PROFILING_ENABLE: copies, pipeline, and launches
    std::size_t align_elements_ = 1;  // sub-buffer origins: CL_DEVICE_MEM_BASE_ADDR_ALIGN
    std::uint32_t seed_ = 1;          // of the self-check's random bytes
};

}  // namespace dualrt::bench::opencl
