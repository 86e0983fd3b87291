/// @file
/// Device: one GPU (or CPU) of one backend, and the factory for everything that runs on it.
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
#include <type_traits>
#include <vector>

namespace dualrt {

namespace backend {
class DeviceImpl;
class MappedBufferImpl;
}

/// Kernel sources compiled at run time, one text per backend, with the same kernel names and
/// parameter lists in both (as for kernels/cl and kernels/cu). A device compiles the text of its
/// own backend: `opencl` with the OpenCL compiler, `cuda` with NVRTC. CUDA kernels are declared
/// `extern "C"` and may `#include "dualrt_kernel.cuh"` (OpenCL's names and `dualrt_local<T>`).
struct KernelSource {
    std::string name;    ///< names the source in error messages, e.g. "my_kernels"
    std::string opencl;  ///< OpenCL C; may be empty when only CUDA devices will load it
    std::string cuda;    ///< CUDA C++; may be empty when only OpenCL devices will load it

    /// A KernelSource read from files, named after them: the text of `opencl_path` (a .cl file)
    /// and of `cuda_path` (a .cu file). Either path may be empty to leave that text empty.
    /// @throws Error Errc::io_error naming the file that cannot be read,
    ///         Errc::invalid_argument when both paths are empty.
    static KernelSource from_files(const std::string& opencl_path, const std::string& cuda_path);
};

/// A device of one backend. Cheap to copy (shared ownership); the device's context lives until
/// the last Device, Buffer, Queue, Event or Kernel of it is gone. Thread-safe.
///
/// Every member but valid() and the comparisons throws Errc::invalid_argument on an
/// empty (default-constructed) Device.
class Device {
public:
    Device() = default;  ///< empty: valid() is false
    /// Wraps a backend device (internal: devices come from dualrt::select and dualrt::devices).
    explicit Device(std::shared_ptr<backend::DeviceImpl> impl);

    /// Whether this is a device (false when default-constructed).
    bool valid() const noexcept { return impl_ != nullptr; }
    const DeviceInfo& info() const;  ///< what the backend can tell about the device
    const std::string& name() const { return info().name; }  ///< info().name
    Backend backend() const { return info().backend; }       ///< info().backend

    /// Device memory for `count` elements, contents undefined. Throws Errc::invalid_argument for
    /// count 0 and Errc::out_of_memory when the device has no room.
    template <typename T>
    Buffer<T> alloc(std::size_t count) const {
        return Buffer<T>(alloc_bytes(count, sizeof(T)));
    }
    /// Pinned host memory for `count` elements, contents undefined. Throws
    /// Errc::invalid_argument for count 0 and Errc::out_of_memory when the host cannot pin that
    /// much.
    template <typename T>
    HostBuffer<T> alloc_host(std::size_t count) const {
        auto impl = alloc_host_bytes(count, sizeof(T));
        return HostBuffer<T>(impl, static_cast<T*>(host_data(*impl)), count);
    }

    /// Pins `count` elements of memory the application already has, at `data`, in place, so that
    /// copies from and to it are DMA like those of alloc_host (CUDA: cuMemHostRegister; OpenCL: a
    /// CL_MEM_USE_HOST_PTR buffer, which NVIDIA's driver pins). The memory is borrowed: dualrt
    /// never frees it. It is unpinned when the last HostBuffer referring to it (copies and views
    /// included) is destroyed. Lifetime rules: the memory must stay allocated until then, and no
    /// copy from or to it may still be running when it is unpinned (wait for their Events first).
    /// Pinning is slow (tens of ms per GiB): register long-lived memory once, not per copy.
    /// @throws Error Errc::invalid_argument for a null pointer, count 0, a range that overlaps
    ///         memory dualrt has pinned already (an alloc_host buffer or another registered
    ///         range), or one the driver refuses (naming why, e.g. pinned already by another
    ///         library); Errc::out_of_memory when the host cannot pin that much;
    ///         Errc::unavailable when the backend cannot register host memory.
    template <typename T>
    HostBuffer<T> register_host(T* data, std::size_t count) const {
        static_assert(!std::is_const_v<T>,
                      "register_host needs writable memory (copies land there)");
        auto impl = register_host_bytes(data, count, sizeof(T));
        return HostBuffer<T>(impl, data, count);
    }

    /// Host memory for `count` elements that this device's kernels read and write in place
    /// (zero-copy; see mapped_buffer.hpp for when the host and the device may touch it), contents
    /// undefined. Throws Errc::invalid_argument for count 0, Errc::unavailable when the device
    /// cannot map host memory (DeviceInfo::can_map_host_memory), Errc::out_of_memory when the host
    /// cannot pin that much.
    template <typename T>
    MappedBuffer<T> alloc_mapped(std::size_t count) const {
        return MappedBuffer<T>(alloc_mapped_bytes(count, sizeof(T)));
    }

    /// A new in-order queue; `options.timing = false` for one whose events are never timed
    /// (cheaper events on OpenCL; see QueueOptions).
    Queue create_queue(QueueOptions options = {}) const;

    /// A kernel by name (built-in or added with dualrt_add_kernels). Its program is built on first
    /// use and cached. Throws Errc::not_found listing the known kernels.
    Kernel kernel(std::string_view name) const;

    /// Compiles the text of `source` for this device's backend and returns the names of the
    /// kernels it defines; kernel(name) finds them from then on. Throws Errc::compile_error with
    /// the compiler's full log, Errc::invalid_argument when the source for this backend is empty,
    /// defines no kernel, or defines a kernel that already exists on this device.
    std::vector<std::string> load_sources(const KernelSource& source) const;

    /// The pinned staging pool of this device (see staging.hpp): its cap, and how it has been used.
    StagingStats staging_stats() const;
    /// Changes the cap of this device's staging pool to `bytes`, releasing idle buffers above it;
    /// DUALRT_STAGING_LIMIT, when set, wins over it.
    void set_staging_limit(std::size_t bytes) const;

    /// Whether copies between this device's buffers and `other`'s go device to device (CUDA peer
    /// access between two GPUs); otherwise Queue::copy stages them through pinned host memory.
    /// False for the same device and for devices of another backend.
    bool peer_access(const Device& other) const;

    NativeHandle native_handle() const;   ///< the native device (docs/guide.md, native_handle)
    NativeHandle native_context() const;  ///< its native context (on CUDA the primary one)
    friend struct detail::BackendAccess;  // the library's own code reaches the backend object

    /// Whether `a` and `b` are the same device (copies of one Device, or one device found twice).
    friend bool operator==(const Device& a, const Device& b) { return a.impl_ == b.impl_; }
    /// Whether `a` and `b` are different devices.
    friend bool operator!=(const Device& a, const Device& b) { return a.impl_ != b.impl_; }

private:
    BufferView alloc_bytes(std::size_t count, std::size_t elem_size) const;
    std::shared_ptr<backend::HostBufferImpl> alloc_host_bytes(std::size_t count,
                                                              std::size_t elem_size) const;
    static void* host_data(backend::HostBufferImpl& impl);
    std::shared_ptr<backend::HostBufferImpl> register_host_bytes(void* data, std::size_t count,
                                                                 std::size_t elem_size) const;
    std::shared_ptr<backend::MappedBufferImpl> alloc_mapped_bytes(std::size_t count,
                                                                  std::size_t elem_size) const;
    void require_valid(const char* operation) const;

    std::shared_ptr<backend::DeviceImpl> impl_;
};

}  // namespace dualrt
