// DeviceImpl: one CUDA device, its primary context, and the factory for its buffers, queues and
// kernels.
#pragma once

#include "backend/backend.hpp"
#include "program.hpp"

#include <cuda.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dualrt::cuda {

// Retains the device's primary context on first use and releases it when destroyed (the context
// is shared with the CUDA runtime and other libraries in the process, as NVIDIA recommends).
// A device made by wrap_device (wrap.cpp) works in the application's context instead: borrowed
// (never released) or adopted (released when destroyed, as it was obtained).
// Every child (buffer, host buffer, queue, event, kernel) holds a std::shared_ptr<DeviceImpl>, so
// the context outlives them all. Always create it with std::make_shared. Thread-safe.
class DeviceImpl final : public backend::DeviceImpl {
public:
    // This device as its children hold it (the base class is enable_shared_from_this).
    std::shared_ptr<DeviceImpl> self() {
        return std::static_pointer_cast<DeviceImpl>(shared_from_this());
    }
    // Reads the device's properties (no context yet). `index` is the device's position in the
    // backend's list. Throws dualrt::Error when a query fails.
    DeviceImpl(CUdevice device, int index, int driver_version);
    // The application's `context` of `device`, checked by the caller (wrap.cpp). `primary`: it is
    // the device's primary context, so adopting it takes over one retain of it
    // (cuDevicePrimaryCtxRelease), where adopting another context destroys it (cuCtxDestroy).
    struct WrappedContext {
        CUcontext context = nullptr;
        Ownership ownership = Ownership::borrow;
        bool primary = false;
    };
    DeviceImpl(CUdevice device, int index, int driver_version, WrappedContext wrapped);
    // Unloads the device's modules and releases its context as it was obtained (the primary
    // context's retain, an adopted context; never a borrowed one). Never throws.
    ~DeviceImpl() override;
    DeviceImpl(const DeviceImpl&) = delete;
    DeviceImpl& operator=(const DeviceImpl&) = delete;

    const DeviceInfo& info() const override { return info_; }
    std::shared_ptr<backend::BufferImpl> create_buffer(std::size_t bytes) override;
    std::shared_ptr<backend::HostBufferImpl> create_host_buffer(std::size_t bytes) override;
    std::shared_ptr<backend::HostBufferImpl> register_host_memory(void* data,
                                                                  std::size_t bytes) override;
    std::shared_ptr<backend::MappedBufferImpl> create_mapped_buffer(std::size_t bytes) override;
    std::shared_ptr<backend::QueueImpl> create_queue(bool timed) override;
    // CUDA graphs (recording.hpp).
    std::unique_ptr<backend::RecorderImpl> create_recorder(backend::QueueImpl& queue) override;
    std::shared_ptr<backend::KernelImpl> kernel(const std::string& name) override;
    std::vector<std::string> load_source(const std::string& name,
                                         const std::string& text) override;
    bool can_wait_on(const backend::DeviceImpl& other) const override;  // any CUDA device
    // Memory OpenCL imports in place (external_memory.cpp): VMM allocations exported as POSIX
    // file descriptors, where the device supports both.
    std::string cannot_export_memory() const override;
    ExportedMemory export_memory(std::size_t bytes) override;
    // Another CUDA device that cuDeviceCanAccessPeer says this one reaches directly (cached).
    bool can_copy_peer(const backend::DeviceImpl& other) const override;
    NativeHandle native_handle() const override;   // CUdevice
    NativeHandle native_context() const override;  // CUcontext: the primary or wrapped context
    // Interop (wrap.cpp): a stream of context(), device memory addressed in context(), any
    // CUevent (CUDA lets any context's streams wait for it).
    std::shared_ptr<backend::QueueImpl> wrap_queue(NativeHandle queue,
                                                   Ownership ownership) override;
    std::shared_ptr<backend::BufferImpl> wrap_buffer(NativeHandle memory, std::size_t bytes,
                                                     Ownership ownership) override;
    backend::EventPtr wrap_event(NativeHandle event, Ownership ownership) override;

    // --- for the backend's own objects ---

    CUdevice cu_device() const { return device_; }
    // The primary context, retained on first use (so that listing devices does not initialise
    // every GPU: a context costs hundreds of MiB of device memory), or the wrapped context.
    // Throws when retaining fails.
    CUcontext context() const;
    // Enables peer access between this device's primary context and `other`'s, both ways, the
    // first time it is asked for that pair (cuCtxEnablePeerAccess; "already enabled", by dualrt
    // or by another library sharing the primary contexts, counts as done). Throws when enabling
    // fails.
    void enable_peer_access(const DeviceImpl& other) const;
    // "CUDA device 0 'NAME'" (with ", wrapped context" for wrap_device's), for error contexts.
    std::string describe() const;
    // 90 for compute capability 9.0.
    int compute_capability() const { return compute_capability_; }
    // The largest grid, in blocks per dimension (gridDim limits).
    const std::array<std::size_t, 3>& max_grid() const { return max_grid_; }
    // Threads per warp (32 on every NVIDIA GPU so far), and the most threads an SM holds at
    // once: what Kernel::occupancy measures against.
    std::size_t warp_size() const { return warp_size_; }
    std::size_t max_threads_per_multiprocessor() const { return max_threads_per_sm_; }

private:
    CUdevice device_;
    DeviceInfo info_;
    int compute_capability_ = 0;
    std::array<std::size_t, 3> max_grid_{0, 0, 0};
    std::size_t warp_size_ = 0;
    std::size_t max_threads_per_sm_ = 0;

    // Where context_ comes from, hence how the destructor lets it go.
    enum class ContextOrigin { primary, borrowed, adopted_primary, adopted };
    ContextOrigin context_origin_ = ContextOrigin::primary;

    // Read on every call into the backend, so it is atomic: set once under context_mutex_,
    // released by ~DeviceImpl. Set by the constructor for a wrapped context.
    mutable std::mutex context_mutex_;
    mutable std::atomic<CUcontext> context_{nullptr};

    ProgramCache programs_;

    // Peer capability and enabled peer access, by the other device's CUdevice.
    mutable std::mutex peer_mutex_;
    mutable std::map<CUdevice, bool> can_access_peer_;
    mutable std::set<CUdevice> peer_enabled_;
};

}  // namespace dualrt::cuda
