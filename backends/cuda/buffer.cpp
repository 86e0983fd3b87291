// Device buffers and pinned host buffers.
#include "buffer.hpp"

#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "errors.hpp"

#include <string>
#include <utility>

namespace dualrt::cuda {
namespace {

std::string allocation_context(const DeviceImpl& device, const char* what, std::size_t bytes) {
    return std::string("allocating a ") + what + " of " + detail::format_bytes(bytes) + " on " +
           device.describe();
}

// " (free: 1.2 GiB of 140 GiB)", so that an out-of-memory error says how far off the request was.
std::string free_memory_note() {
    std::size_t free = 0;
    std::size_t total = 0;
    if (cuMemGetInfo(&free, &total) != CUDA_SUCCESS) return "";
    return " (device memory free: " + detail::format_bytes(free) + " of " +
           detail::format_bytes(total) + ")";
}

}  // namespace

BufferImpl::BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes)
    : device_(std::move(device)), bytes_(bytes) {
    ScopedContext current(device_->context());
    CU_CHECK_ALLOC(cuMemAlloc(&address_, bytes),
                   allocation_context(*device_, "device buffer", bytes) + free_memory_note());
}

BufferImpl::~BufferImpl() {
    ScopedContext current(device_->context(), ScopedContext::no_throw);
    CU_CHECK_NOTHROW(cuMemFree(address_), "freeing a device buffer of " +
                                               detail::format_bytes(bytes_) + " on " +
                                               device_->describe());
}

const backend::DeviceImpl& BufferImpl::device() const { return *device_; }

NativeHandle BufferImpl::native_handle() const { return static_cast<NativeHandle>(address_); }

HostBufferImpl::HostBufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes)
    : device_(std::move(device)), bytes_(bytes) {
    ScopedContext current(device_->context());
    CU_CHECK_ALLOC(cuMemHostAlloc(&data_, bytes, CU_MEMHOSTALLOC_PORTABLE),
                   allocation_context(*device_, "pinned host buffer", bytes));
}

HostBufferImpl::~HostBufferImpl() {
    ScopedContext current(device_->context(), ScopedContext::no_throw);
    CU_CHECK_NOTHROW(cuMemFreeHost(data_), "freeing a pinned host buffer of " +
                                               detail::format_bytes(bytes_) + " on " +
                                               device_->describe());
}

const backend::DeviceImpl& HostBufferImpl::device() const { return *device_; }

NativeHandle HostBufferImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(data_);
}

}  // namespace dualrt::cuda
