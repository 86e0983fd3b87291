// Device buffers (cuMemAlloc or mapped pinned memory) and pinned host buffers (cuMemHostAlloc).
#pragma once

#include "backend/backend.hpp"

#include <cuda.h>

#include <atomic>
#include <cstddef>
#include <memory>

namespace dualrt::cuda {

class DeviceImpl;

// An allocation of bytes() bytes that kernels address: device memory, or mapped pinned host memory
// (the device side of a MappedBufferImpl, mapped_buffer.hpp). Views are byte offsets from
// address(), so a kernel argument viewing part of a buffer costs nothing (unlike OpenCL's
// sub-buffers). Thread-safe (immutable but for the host's claim, which is atomic).
class BufferImpl final : public backend::BufferImpl {
public:
    // Allocates (cuMemAlloc: 256-byte aligned). Throws Errc::out_of_memory naming the size, the
    // device and its free memory when the device has no room.
    BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes);

    // Allocates mapped pinned host memory (cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP |
    // CU_MEMHOSTALLOC_PORTABLE) and addresses it through its device pointer. Throws
    // Errc::out_of_memory naming the size and the device when the host cannot pin it.
    struct MappedHost {};
    static constexpr MappedHost mapped_host{};
    BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes, MappedHost);

    // The application's device memory at `address` (checked by the caller, wrap.cpp): freed with
    // cuMemFree by the destructor when adopted, never when borrowed.
    struct Wrapped {};
    static constexpr Wrapped wrapped{};
    BufferImpl(std::shared_ptr<DeviceImpl> device, CUdeviceptr address, std::size_t bytes,
               Ownership ownership, Wrapped);

    // Device memory that another API can import (external_memory.cpp): virtual memory management
    // (cuMemCreate with POSIX file descriptor handles, mapped read-write for this device), `bytes`
    // rounded up to the allocation granularity. export_fd() gives a descriptor of it.
    struct Exportable {};
    static constexpr Exportable exportable{};
    BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes, Exportable);
    int export_fd() const;  // a new POSIX file descriptor of exportable memory; the caller owns it

    // cuMemFree / cuMemFreeHost, which wait for work still using the memory; for exportable
    // memory, a wait for the context's work, then unmap and release (which do not wait); nothing
    // for borrowed memory. Never throws.
    ~BufferImpl() override;
    BufferImpl(const BufferImpl&) = delete;
    BufferImpl& operator=(const BufferImpl&) = delete;

    const backend::DeviceImpl& device() const override;
    std::size_t bytes() const override { return bytes_; }
    NativeHandle native_handle() const override;  // CUdeviceptr, owned unless borrowed

    // The address every command uses. Throws Errc::invalid_argument while the host holds mapped
    // memory, so that a command never uses memory that is the host's turn (the rule OpenCL
    // imposes; kept here so programs behave alike on both backends).
    CUdeviceptr address() const {
        if (host_claim_.load(std::memory_order_acquire)) raise_held_by_host();
        return address_;
    }

    // --- mapped host memory only ---

    void* host_address() const { return host_; }  // nullptr for device memory
    // Takes the memory for the host; false when the host holds it already.
    bool claim_for_host() { return !host_claim_.exchange(true, std::memory_order_acq_rel); }
    void return_to_device() { host_claim_.store(false, std::memory_order_release); }
    bool held_by_host() const { return host_claim_.load(std::memory_order_acquire); }

private:
    [[noreturn]] void raise_held_by_host() const;
    void free_exportable() noexcept;  // external_memory.cpp

    std::shared_ptr<DeviceImpl> device_;
    std::size_t bytes_;
    CUdeviceptr address_ = 0;
    void* host_ = nullptr;  // set for mapped host memory, which is freed with cuMemFreeHost
    bool owned_ = true;     // false for borrowed memory (wrap_buffer): never freed here
    // Exportable memory: its allocation handle and the mapped (rounded) size; 0 otherwise.
    CUmemGenericAllocationHandle allocation_ = 0;
    std::size_t mapped_bytes_ = 0;
    std::atomic<bool> host_claim_{false};
};

// Page-locked host memory, portable (pinned for every context), so copies between it and device
// buffers run asynchronously at full DMA speed: dualrt's own (cuMemHostAlloc) or the
// application's, registered in place (cuMemHostRegister). The object is thread-safe; the memory's
// contents are the caller's.
class HostBufferImpl final : public backend::HostBufferImpl {
public:
    // Throws Errc::out_of_memory naming the size and the device when the host cannot pin it.
    HostBufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes);
    // Pins the application's `bytes` at `data` in place (borrowed: unpinned, never freed, by the
    // destructor). Throws Errc::invalid_argument when the driver refuses the range (pinned
    // already, e.g. by cudaHostRegister), Errc::out_of_memory when the host cannot pin it.
    struct Register {};
    static constexpr Register register_in_place{};
    HostBufferImpl(std::shared_ptr<DeviceImpl> device, void* data, std::size_t bytes, Register);
    ~HostBufferImpl() override;  // cuMemFreeHost, or cuMemHostUnregister. Never throws.
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
    bool registered_ = false;  // the application's memory: unregister, never free
};

}  // namespace dualrt::cuda
