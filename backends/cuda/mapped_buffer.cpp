// MappedBufferImpl: the host's turns with mapped pinned memory.
#include "mapped_buffer.hpp"

#include "buffer.hpp"
#include "device.hpp"

#include <utility>

namespace dualrt::cuda {

MappedBufferImpl::MappedBufferImpl(const std::shared_ptr<DeviceImpl>& device, std::size_t bytes)
    : buffer_(std::make_shared<BufferImpl>(device, bytes, BufferImpl::mapped_host)) {}

const backend::DeviceImpl& MappedBufferImpl::device() const { return buffer_->device(); }

std::size_t MappedBufferImpl::bytes() const { return buffer_->bytes(); }

std::shared_ptr<backend::BufferImpl> MappedBufferImpl::device_buffer() const { return buffer_; }

bool MappedBufferImpl::host_held() const { return buffer_->held_by_host(); }

void* MappedBufferImpl::begin_host_access(backend::QueueImpl& queue) {
    if (!buffer_->claim_for_host()) return nullptr;
    try {
        queue.finish();  // kernels that write the memory are done: the host sees their writes
    } catch (...) {
        buffer_->return_to_device();
        throw;
    }
    return buffer_->host_address();
}

void MappedBufferImpl::end_host_access(backend::QueueImpl&) { buffer_->return_to_device(); }

NativeHandle MappedBufferImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(buffer_->host_address());
}

}  // namespace dualrt::cuda
