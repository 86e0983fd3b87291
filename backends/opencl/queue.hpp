// QueueImpl: an in-order cl::CommandQueue with profiling, for copies, fills and kernel launches.
#pragma once

#include "backend/backend.hpp"
#include "cl.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace dualrt::opencl {

class DeviceImpl;

// Owns one in-order command queue created with CL_QUEUE_PROFILING_ENABLE on its device's context.
// Every enqueue returns the EventImpl of its command; with Sync::blocking the call returns after
// the command completed. (DUALRT_SYNC is handled by the core for every backend.)
// Thread-safe: OpenCL queues accept commands from any thread; launches of one kernel are
// serialised by the kernel's launch mutex.
class QueueImpl final : public backend::QueueImpl {
public:
    // Creates the queue (and the device's context on first use). Throws dualrt::Error.
    explicit QueueImpl(std::shared_ptr<DeviceImpl> device);

    const backend::DeviceImpl& device() const override;
    backend::EventPtr copy_to_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                     const void* src, std::size_t bytes, Sync sync) override;
    backend::EventPtr copy_to_host(void* dst, backend::BufferImpl& src, std::size_t src_offset,
                                   std::size_t bytes, Sync sync) override;
    backend::EventPtr copy_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                  backend::BufferImpl& src, std::size_t src_offset,
                                  std::size_t bytes, Sync sync) override;
    backend::EventPtr fill(backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
                           const void* pattern, std::size_t pattern_size, Sync sync) override;
    backend::EventPtr launch(backend::KernelImpl& kernel, const backend::LaunchGeometry& geometry,
                             const std::vector<backend::KernelArg>& args) override;
    backend::EventPtr record() override;           // clEnqueueMarkerWithWaitList
    void wait_for(backend::EventImpl& event) override;  // clEnqueueBarrierWithWaitList
    void finish() override;                        // clFinish: blocks
    NativeHandle native_handle() const override;   // cl_command_queue, owned by this object

private:
    // "queue of OpenCL device 0 'NAME'" plus `what`, for error contexts.
    std::string describe(const std::string& what) const;
    // Wraps the event of a command just enqueued; waits for it when `wait` (a blocking call whose
    // OpenCL command has no blocking flag of its own).
    backend::EventPtr enqueued(cl::Event event, bool wait);

    std::shared_ptr<DeviceImpl> device_;
    cl::CommandQueue queue_;
};

}  // namespace dualrt::opencl
