// MappedBufferImpl: mapped pinned host memory that kernels read and write in place (zero-copy).
#pragma once

#include "backend/backend.hpp"

#include <cstddef>
#include <memory>

namespace dualrt::cuda {

class BufferImpl;
class DeviceImpl;

// Host memory from cuMemHostAlloc(DEVICEMAP | PORTABLE), owned by a BufferImpl that kernels and
// copies address through its device pointer. Host and device views are always both valid on
// CUDA: a host turn only waits for the queue (so the host sees what kernels wrote; kernel
// completion makes their writes to mapped memory visible) and sets the claim that makes commands
// refuse the buffer meanwhile (the rule of the OpenCL twin). Host writes need no flush: a command
// is enqueued after them, and the driver orders its launch after the host's earlier stores.
// Thread-safe.
class MappedBufferImpl final : public backend::MappedBufferImpl {
public:
    // Allocates and maps. Throws Errc::out_of_memory naming the size and the device.
    MappedBufferImpl(const std::shared_ptr<DeviceImpl>& device, std::size_t bytes);

    const backend::DeviceImpl& device() const override;
    std::size_t bytes() const override;
    std::shared_ptr<backend::BufferImpl> device_buffer() const override;
    bool host_held() const override;
    void* begin_host_access(backend::QueueImpl& queue) override;  // claim, then queue.finish()
    void end_host_access(backend::QueueImpl& queue) override;     // drops the claim
    NativeHandle native_handle() const override;  // the host pointer (== the device pointer
                                                  // under unified addressing)

private:
    std::shared_ptr<BufferImpl> buffer_;  // owns the memory
};

}  // namespace dualrt::cuda
