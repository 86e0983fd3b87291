// Device: one GPU (or CPU) of one backend, and the factory for everything that runs on it.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/host_buffer.hpp>
#include <dualrt/kernel.hpp>
#include <dualrt/mapped_buffer.hpp>
#include <dualrt/queue.hpp>
#include <dualrt/staging.hpp>
#include <dualrt/types.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dualrt {

namespace backend {
class DeviceImpl;
class MappedBufferImpl;
}

// Kernel sources compiled at run time, one text per backend, with the same kernel names and
// parameter lists in both (as for kernels/cl and kernels/cu). A device compiles the text of its
// own backend: `opencl` with the OpenCL compiler, `cuda` with NVRTC. CUDA kernels are declared
// extern "C" and may #include "dualrt_kernel.cuh" (OpenCL's names and dualrt_local<T>).
struct KernelSource {
    std::string name;    // names the source in error messages, e.g. "my_kernels"
    std::string opencl;  // OpenCL C; may be empty when only CUDA devices will load it
    std::string cuda;    // CUDA C++; may be empty when only OpenCL devices will load it
};

// A device of one backend. Cheap to copy (shared ownership); the device's context lives until
// the last Device, Buffer, Queue, Event or Kernel of it is gone. Thread-safe.
class Device {
public:
    Device() = default;
    explicit Device(std::shared_ptr<backend::DeviceImpl> impl);

    bool valid() const noexcept { return impl_ != nullptr; }
    const DeviceInfo& info() const;
    const std::string& name() const { return info().name; }
    Backend backend() const { return info().backend; }

    // Device memory for `count` elements, contents undefined. Throws Errc::invalid_argument for
    // count 0 and Errc::out_of_memory when the device has no room.
    template <typename T>
    Buffer<T> alloc(std::size_t count) const {
        return Buffer<T>(alloc_bytes(count, sizeof(T)));
    }
    // Pinned host memory for `count` elements, contents undefined.
    template <typename T>
    HostBuffer<T> alloc_host(std::size_t count) const {
        auto impl = alloc_host_bytes(count, sizeof(T));
        return HostBuffer<T>(impl, static_cast<T*>(host_data(*impl)), count);
    }

    // Host memory for `count` elements that this device's kernels read and write in place
    // (zero-copy; see mapped_buffer.hpp for when the host and the device may touch it), contents
    // undefined. Throws Errc::invalid_argument for count 0, Errc::unavailable when the device
    // cannot map host memory (DeviceInfo::can_map_host_memory), Errc::out_of_memory when the host
    // cannot pin that much.
    template <typename T>
    MappedBuffer<T> alloc_mapped(std::size_t count) const {
        return MappedBuffer<T>(alloc_mapped_bytes(count, sizeof(T)));
    }

    Queue create_queue() const;  // a new in-order queue

    // A kernel by name (built-in or added with dualrt_add_kernels). Its program is built on first
    // use and cached. Throws Errc::not_found listing the known kernels.
    Kernel kernel(std::string_view name) const;

    // Compiles the text of `source` for this device's backend and returns the names of the
    // kernels it defines; kernel(name) finds them from then on. Throws Errc::compile_error with
    // the compiler's full log, Errc::invalid_argument when the source for this backend is empty,
    // defines no kernel, or defines a kernel that already exists on this device.
    std::vector<std::string> load_sources(const KernelSource& source) const;

    // The pinned staging pool of this device (see staging.hpp). set_staging_limit changes its
    // cap, releasing idle buffers above it; DUALRT_STAGING_LIMIT, when set, wins over it.
    StagingStats staging_stats() const;
    void set_staging_limit(std::size_t bytes) const;

    NativeHandle native_handle() const;   // cl_device_id / CUdevice
    NativeHandle native_context() const;  // cl_context / CUcontext (the primary context)
    const std::shared_ptr<backend::DeviceImpl>& impl() const noexcept { return impl_; }

    friend bool operator==(const Device& a, const Device& b) { return a.impl_ == b.impl_; }
    friend bool operator!=(const Device& a, const Device& b) { return a.impl_ != b.impl_; }

private:
    BufferView alloc_bytes(std::size_t count, std::size_t elem_size) const;
    std::shared_ptr<backend::HostBufferImpl> alloc_host_bytes(std::size_t count,
                                                              std::size_t elem_size) const;
    static void* host_data(backend::HostBufferImpl& impl);
    std::shared_ptr<backend::MappedBufferImpl> alloc_mapped_bytes(std::size_t count,
                                                                  std::size_t elem_size) const;
    void require_valid(const char* operation) const;

    std::shared_ptr<backend::DeviceImpl> impl_;
};

}  // namespace dualrt
