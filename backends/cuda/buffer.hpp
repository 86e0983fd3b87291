// Device buffers (cuMemAlloc) and pinned host buffers (cuMemHostAlloc).
#pragma once

#include "backend/backend.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>

namespace dualrt::cuda {

class DeviceImpl;

// An allocation of bytes() bytes of device memory. Views are byte offsets from address(), so a
// kernel argument viewing part of a buffer costs nothing (unlike OpenCL's sub-buffers).
// Thread-safe (immutable).
class BufferImpl final : public backend::BufferImpl {
public:
    // Allocates (cuMemAlloc: 256-byte aligned). Throws Errc::out_of_memory naming the size, the
    // device and its free memory when the device has no room.
    BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes);
    // cuMemFree, which waits for work still using the memory. Never throws.
    ~BufferImpl() override;
    BufferImpl(const BufferImpl&) = delete;
    BufferImpl& operator=(const BufferImpl&) = delete;

    const backend::DeviceImpl& device() const override;
    std::size_t bytes() const override { return bytes_; }
    NativeHandle native_handle() const override;  // CUdeviceptr, owned by this object

    CUdeviceptr address() const { return address_; }

private:
    std::shared_ptr<DeviceImpl> device_;
    std::size_t bytes_;
    CUdeviceptr address_ = 0;
};

// Page-locked host memory from cuMemHostAlloc (portable: pinned for every context), so copies
// between it and device buffers run asynchronously at full DMA speed. The object is thread-safe;
// the memory's contents are the caller's.
class HostBufferImpl final : public backend::HostBufferImpl {
public:
    // Throws Errc::out_of_memory naming the size and the device when the host cannot pin it.
    HostBufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes);
    ~HostBufferImpl() override;  // cuMemFreeHost. Never throws.
    HostBufferImpl(const HostBufferImpl&) = delete;
    HostBufferImpl& operator=(const HostBufferImpl&) = delete;

    const backend::DeviceImpl& device() const override;
    void* data() override { return data_; }
    std::size_t bytes() const override { return bytes_; }
    NativeHandle native_handle() const override;  // the host pointer, owned by this object

private:
    std::shared_ptr<DeviceImpl> device_;
    std::size_t bytes_;
    void* data_ = nullptr;
};

}  // namespace dualrt::cuda
