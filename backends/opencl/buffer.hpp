// Device buffers (cl::Buffer, on the device or in host memory for zero-copy) and pinned host
// buffers (a CL_MEM_ALLOC_HOST_PTR buffer mapped once).
#pragma once

#include "backend/backend.hpp"
#include "cl.hpp"

#include <atomic>
#include <cstddef>
#include <memory>
#include <utility>

namespace dualrt::opencl {

class DeviceImpl;

// A CL_MEM_READ_WRITE allocation of bytes() bytes: device memory, or host memory that kernels
// reach in place (the device side of a MappedBufferImpl, mapped_buffer.hpp). Owns its cl_mem,
// and the sub-buffers made for kernel arguments that view part of it. Thread-safe.
class BufferImpl final : public backend::BufferImpl {
public:
    // Allocates (blocking). Throws Errc::out_of_memory naming the size and the device when the
    // device refuses, or when bytes exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE. Some drivers commit
    // memory lazily; their shortage then surfaces at first use, as the driver reports it.
    BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes);

    // Allocates with CL_MEM_ALLOC_HOST_PTR: host memory the driver pins and lets kernels reach,
    // where the device can (otherwise the driver moves it at map and unmap; correct either way).
    // Left unmapped: MappedBufferImpl maps it for each of the host's turns.
    struct MappedHost {};
    static constexpr MappedHost mapped_host{};
    BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes, MappedHost);

    // The application's `buffer`, of which the first `bytes` are used (checked by the caller,
    // wrap.cpp). `buffer` carries the reference this object releases: dualrt's own for borrowed
    // memory, the application's for adopted memory.
    struct Wrapped {};
    static constexpr Wrapped wrapped{};
    BufferImpl(std::shared_ptr<DeviceImpl> device, cl::Buffer buffer, std::size_t bytes, Wrapped);

    const backend::DeviceImpl& device() const override;
    std::size_t bytes() const override { return bytes_; }
    NativeHandle native_handle() const override;  // cl_mem, owned by this object

    // The memory object for commands. Like kernel_argument, throws Errc::invalid_argument while
    // the host holds mapped memory: OpenCL forbids commands on a buffer mapped for the host.
    const cl::Buffer& cl_buffer() const {
        if (host_claim_.load(std::memory_order_acquire)) raise_held_by_host();
        return buffer_;
    }

    // The memory object to pass as a kernel argument for the view [offset, offset + bytes): the
    // allocation itself for the whole range (no retain or release), else a new sub-buffer made
    // into `sub_buffer`, which the caller keeps until the launch is enqueued and then releases.
    // A sub-buffer serves one launch only; why, see the class's private part.
    // Throws Errc::invalid_argument when offset is not a multiple of the device's
    // CL_DEVICE_MEM_BASE_ADDR_ALIGN. The range is valid (checked by the core).
    const cl::Buffer& kernel_argument(std::size_t offset, std::size_t bytes,
                                      cl::Buffer& sub_buffer);

    // --- mapped host memory only ---

    // Takes the memory for the host; false when the host holds it already. From then on,
    // cl_buffer() and kernel_argument() throw until return_to_device().
    bool claim_for_host() { return !host_claim_.exchange(true, std::memory_order_acq_rel); }
    void return_to_device() { host_claim_.store(false, std::memory_order_release); }
    bool held_by_host() const { return host_claim_.load(std::memory_order_acquire); }
    // The memory object for map and unmap, which are exactly the commands a claim allows.
    const cl::Buffer& cl_buffer_for_mapping() const { return buffer_; }

private:
    [[noreturn]] void raise_held_by_host() const;

    // No sub-buffer outlives its launch. NVIDIA's OpenCL (580, H200) crashes inside
    // clReleaseMemObject when sub-buffers that many launches have used are released with their
    // buffer: the stress suite's pipeline soak, which keeps its chunk buffers across runs, dies
    // in most runs with sub-buffers cached per view (1024 or 8 per buffer), and in none with one
    // sub-buffer per launch (docs/RELIABILITY.md). That costs a clCreateSubBuffer and a
    // clReleaseMemObject per view argument (about 14 us of host time per launch there), only
    // for views: a whole buffer is passed as is.
    std::shared_ptr<DeviceImpl> device_;
    std::size_t bytes_;
    cl::Buffer buffer_;
    std::atomic<bool> host_claim_{false};
};

// Pinned host memory: a CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE buffer, mapped once for reading
// and writing (blocking, on the device's internal queue) when created and unmapped when destroyed.
// data() is valid for the object's whole life; copies between it and device buffers run at
// pinned speed on drivers that pin such buffers (NVIDIA, AMD, Intel). Its cl_mem is never used in
// commands while mapped. The object is thread-safe; the memory's contents are the caller's.
//
// Registered memory (Device::register_host) is the application's memory wrapped in a
// CL_MEM_USE_HOST_PTR buffer and mapped once the same way: NVIDIA's driver pins such memory when
// the buffer is made (measured on an H200: clEnqueueWriteBuffer from it then runs at the pinned
// rate, 55 GB/s, against 6-12 GB/s before), and a driver that does not still copies correctly.
class HostBufferImpl final : public backend::HostBufferImpl {
public:
    // Allocates and maps (blocking). Throws Errc::out_of_memory naming the size and the device.
    HostBufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes);
    // Wraps the application's `bytes` at `data` (borrowed: never freed here) and maps it in
    // place (blocking). Throws Errc::invalid_argument when the driver refuses the range or maps
    // it elsewhere than `data` (it would then not be the application's memory that copies use),
    // Errc::out_of_memory when it cannot pin it.
    struct Register {};
    static constexpr Register register_in_place{};
    HostBufferImpl(std::shared_ptr<DeviceImpl> device, void* data, std::size_t bytes, Register);
    // Unmaps and waits for the unmap (finishes the internal queue). Never throws; logs failures.
    ~HostBufferImpl() override;
    HostBufferImpl(const HostBufferImpl&) = delete;
    HostBufferImpl& operator=(const HostBufferImpl&) = delete;

    const backend::DeviceImpl& device() const override;
    void* data() override { return data_; }
    // The memory object, for commands that copy between memory objects (command buffers have
    // no copy from a host pointer). It is mapped for the host for its whole life.
    const cl::Buffer& cl_buffer() const { return buffer_; }
    std::size_t bytes() const override { return bytes_; }
    NativeHandle native_handle() const override;  // cl_mem, owned by this object

private:
    std::shared_ptr<DeviceImpl> device_;
    std::size_t bytes_;
    cl::Buffer buffer_;
    cl::CommandQueue queue_;  // the device's internal queue, which mapped data_
    void* data_ = nullptr;
};

}  // namespace dualrt::opencl
