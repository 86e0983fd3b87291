// DeviceImpl: one OpenCL device, its context, and the factory for its buffers, queues and kernels.
#pragma once

#include "backend/backend.hpp"
#include "cl.hpp"
#include "program.hpp"
#include "recording.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dualrt::opencl {

// Owns the device's cl::Context (one per device) and a small internal queue for mapping pinned
// host buffers. A device made by wrap_device (wrap.cpp) works in the application's context
// instead, holding a reference of its own (borrowed) or the application's (adopted). Every child
// (buffer, host buffer, queue, event, kernel) holds a std::shared_ptr<DeviceImpl>, so the context
// outlives them all. Always create it with
// std::make_shared (children are handed shared_from_this()). Thread-safe.
class DeviceImpl final : public backend::DeviceImpl {
public:
    // This device as its children hold it (the base class is enable_shared_from_this).
    std::shared_ptr<DeviceImpl> self() {
        return std::static_pointer_cast<DeviceImpl>(shared_from_this());
    }
    // Reads the device's properties (blocking queries, no context yet). `index` is the device's
    // position in the backend's list. Throws dualrt::Error when a required query fails.
    DeviceImpl(cl::Device device, std::string platform_name, int index);
    // A device in the application's `context`, which holds `device` (checked by the caller,
    // wrap.cpp). `context` carries the reference this object releases: dualrt's own for a
    // borrowed context, the application's for an adopted one. Creates the internal queue on it.
    DeviceImpl(cl::Device device, std::string platform_name, int index, cl::Context context);

    const DeviceInfo& info() const override { return info_; }
    std::shared_ptr<backend::BufferImpl> create_buffer(std::size_t bytes) override;
    std::shared_ptr<backend::HostBufferImpl> create_host_buffer(std::size_t bytes) override;
    std::shared_ptr<backend::HostBufferImpl> register_host_memory(void* data,
                                                                  std::size_t bytes) override;
    std::shared_ptr<backend::MappedBufferImpl> create_mapped_buffer(std::size_t bytes) override;
    std::shared_ptr<backend::QueueImpl> create_queue(bool timed) override;
    std::shared_ptr<backend::KernelImpl> kernel(const std::string& name) override;
    std::vector<std::string> load_source(const std::string& name,
                                         const std::string& text) override;
    // Memory the CUDA device of the same GPU exports, imported in place (external_memory.cpp).
    std::string cannot_import_memory() const override;
    std::shared_ptr<backend::BufferImpl> import_memory(int fd, std::size_t bytes) override;
    ImportLimit largest_import() const override;
    NativeHandle native_handle() const override;   // cl_device_id, owned by this object
    NativeHandle native_context() const override;  // cl_context, owned by this object
    // Command buffers or a command list, as info().recording says (recording.hpp).
    std::unique_ptr<backend::RecorderImpl> create_recorder(backend::QueueImpl& queue) override;
    // Interop (wrap.cpp): queues, buffers and events of context().
    std::shared_ptr<backend::QueueImpl> wrap_queue(NativeHandle queue,
                                                   Ownership ownership) override;
    std::shared_ptr<backend::BufferImpl> wrap_buffer(NativeHandle memory, std::size_t bytes,
                                                     Ownership ownership) override;
    backend::EventPtr wrap_event(NativeHandle event, Ownership ownership) override;

    // --- for the backend's own objects ---

    const cl::Device& cl_device() const { return device_; }
    // The context, created on first use (so that listing devices does not initialise every GPU:
    // an NVIDIA context costs hundreds of MiB of device memory). Throws when creation fails.
    const cl::Context& context() const;
    // An in-order queue private to the device, for mapping/unmapping host buffers.
    const cl::CommandQueue& internal_queue() const;
    // The wait list of every untimed marker a queue of this device makes: one user event of the
    // context, complete from the start. NVIDIA's OpenCL (580) ends a marker with an empty wait
    // list only once every command enqueued before it on any queue of the context has ended,
    // not just its own queue's; with a wait list it keeps to its queue's order, as the standard
    // says. Without it, a copy's event polled after a long kernel was enqueued on another queue
    // reads complete only after that kernel.
    const std::vector<cl::Event>& marker_wait_list() const;

    // "OpenCL device 0 'NAME'" (with " (wrapped context)" for wrap_device's), for error
    // contexts.
    std::string describe() const;
    // Throws Errc::out_of_memory naming the limit when one allocation of `bytes` exceeds
    // CL_DEVICE_MAX_MEM_ALLOC_SIZE. `what` names the allocation ("device buffer").
    void check_allocation_size(std::size_t bytes, const char* what) const;
    // Sub-buffer origins must be multiples of this many bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN).
    std::size_t sub_buffer_alignment() const { return sub_buffer_alignment_; }
    // Whether the platform is PoCL, whose launches go through pocl_launch_guard.hpp.
    bool is_pocl() const { return pocl_; }

private:
    struct Runtime {
        cl::Context context;
        cl::CommandQueue internal_queue;
        std::vector<cl::Event> marker_wait_list;
    };
    const Runtime& runtime() const;
    // The context and the internal queue on `context`. Throws when the queue cannot be made.
    Runtime make_runtime(cl::Context context) const;

    cl::Device device_;
    DeviceInfo info_;
    std::uint64_t max_alloc_bytes_ = 0;
    std::size_t sub_buffer_alignment_ = 1;
    bool pocl_ = false;
    RecordingSupport recording_;

    mutable std::mutex runtime_mutex_;
    mutable std::optional<Runtime> runtime_;  // set once under runtime_mutex_, never reset

    ProgramCache programs_;
};

}  // namespace dualrt::opencl
