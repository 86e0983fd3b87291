// MappedBufferImpl: a CL_MEM_ALLOC_HOST_PTR buffer that kernels read and write in place
// (zero-copy), mapped for each of the host's turns.
#pragma once

#include "backend/backend.hpp"
#include "cl.hpp"

#include <cstddef>
#include <memory>
#include <string>

namespace dualrt::opencl {

class BufferImpl;
class DeviceImpl;

// OpenCL's rules, which this class follows: no command may use a buffer while it is mapped for the
// host; host writes reach the device only at unmap, device writes reach the host only at map. So
// the buffer starts unmapped (the device's), a host turn is a blocking map on the caller's queue
// (after the work enqueued there so far), and its end an unmap on the same queue, waited for so
// that commands of every queue see the host's writes. While mapped, the BufferImpl's claim makes
// every command that uses it throw. The host pointer is new for each turn.
//
// Never mapped when destroyed: each turn holds a reference to this object (the core's HostAccess)
// and ends with end_host_access. Thread-safe: the claim admits one turn at a time, and only the
// claimer touches host_.
class MappedBufferImpl final : public backend::MappedBufferImpl {
public:
    // Allocates (not yet mapped). Throws Errc::out_of_memory naming the size and the device.
    MappedBufferImpl(const std::shared_ptr<DeviceImpl>& device, std::size_t bytes);

    const backend::DeviceImpl& device() const override;
    std::size_t bytes() const override;
    std::shared_ptr<backend::BufferImpl> device_buffer() const override;
    bool host_held() const override;
    void* begin_host_access(backend::QueueImpl& queue) override;  // claim, blocking map
    void end_host_access(backend::QueueImpl& queue) override;     // unmap, wait, drop the claim
    NativeHandle native_handle() const override;                   // cl_mem

private:
    // "... a mapped host buffer of N MiB on OpenCL device 0 'NAME'", for error contexts.
    std::string describe(const char* what) const;

    std::shared_ptr<BufferImpl> buffer_;  // owns the cl_mem
    void* host_ = nullptr;                // the current turn's mapping
};

}  // namespace dualrt::opencl
