// Device buffers, the sub-buffers that pass their views to kernels, and pinned host buffers.
#include "buffer.hpp"

#include "check.hpp"
#include "device.hpp"
#include "support/raise.hpp"

#include <string>
#include <utility>

namespace dualrt::opencl {
namespace {

std::string allocation_context(const DeviceImpl& device, const char* what, std::size_t bytes) {
    return std::string("allocating a ") + what + " of " + detail::format_bytes(bytes) + " on " +
           device.describe();
}

[[noreturn]] void raise_misaligned_view(const DeviceImpl& device, std::size_t offset,
                                        std::size_t bytes, std::size_t alignment) {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = "opencl";
    info.call = "clCreateSubBuffer";
    info.context = "a kernel argument viewing " + detail::format_bytes(bytes) + " of a buffer on " +
                   device.describe();
    info.detail = "buffer view at byte offset " + std::to_string(offset) +
                  " cannot be a kernel argument on this OpenCL device: the offset must be a "
                  "multiple of " +
                  std::to_string(alignment) + " bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN)";
    detail::raise(std::move(info));
}

}  // namespace

BufferImpl::BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes)
    : device_(std::move(device)), bytes_(bytes) {
    device_->check_allocation_size(bytes, "device buffer");
    buffer_ = CL_CHECK_ALLOC(cl::Buffer(device_->context(), CL_MEM_READ_WRITE, bytes),
                             allocation_context(*device_, "device buffer", bytes));
}

BufferImpl::BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes, MappedHost)
    : device_(std::move(device)), bytes_(bytes) {
    device_->check_allocation_size(bytes, "mapped host buffer");
    buffer_ = CL_CHECK_ALLOC(
        cl::Buffer(device_->context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes),
        allocation_context(*device_, "mapped host buffer", bytes));
}

BufferImpl::BufferImpl(std::shared_ptr<DeviceImpl> device, cl::Buffer buffer, std::size_t bytes,
                       Wrapped)
    : device_(std::move(device)), bytes_(bytes), buffer_(std::move(buffer)) {}

const backend::DeviceImpl& BufferImpl::device() const { return *device_; }

NativeHandle BufferImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(buffer_());
}

void BufferImpl::raise_held_by_host() const {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = "opencl";
    info.call = "a command using MappedBuffer::device_view()";
    info.context = "mapped host buffer of " + detail::format_bytes(bytes_) + " on " +
                   device_->describe();
    info.detail = "the host holds this mapped buffer (a HostAccess from MappedBuffer::host() is "
                  "alive); release the HostAccess before enqueueing device work that uses it";
    detail::raise(std::move(info));
}

const cl::Buffer& BufferImpl::kernel_argument(std::size_t offset, std::size_t bytes,
                                              cl::Buffer& sub_buffer) {
    if (host_claim_.load(std::memory_order_acquire)) raise_held_by_host();
    if (offset == 0 && bytes == bytes_) return buffer_;
    const std::size_t alignment = device_->sub_buffer_alignment();
    if (offset % alignment != 0) raise_misaligned_view(*device_, offset, bytes, alignment);
    const cl_buffer_region region{offset, bytes};
    sub_buffer = CL_CHECK_ALLOC(
        buffer_.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region),
        "a kernel argument viewing bytes [" + std::to_string(offset) + ", " +
            std::to_string(offset + bytes) + ") of a " + detail::format_bytes(bytes_) +
            " buffer on " + device_->describe());
    return sub_buffer;
}

HostBufferImpl::HostBufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes)
    : device_(std::move(device)), bytes_(bytes) {
    device_->check_allocation_size(bytes, "pinned host buffer");
    buffer_ = CL_CHECK_ALLOC(
        cl::Buffer(device_->context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes),
        allocation_context(*device_, "pinned host buffer", bytes));
    queue_ = device_->internal_queue();
    data_ = CL_CHECK_ALLOC(
        queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes),
        "mapping a pinned host buffer of " + detail::format_bytes(bytes) + " on " +
            device_->describe());
}

HostBufferImpl::HostBufferImpl(std::shared_ptr<DeviceImpl> device, void* data, std::size_t bytes,
                               Register)
    : device_(std::move(device)), bytes_(bytes) {
    const auto context = [&] {
        return "registering " + detail::format_bytes(bytes) + " of host memory at " +
               detail::address_text(data) + " with " + device_->describe();
    };
    device_->check_allocation_size(bytes, "registered host range");
    buffer_ = CL_CHECK_ALLOC(
        cl::Buffer(device_->context(), CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, data),
        context());
    queue_ = device_->internal_queue();
    void* mapped = CL_CHECK_ALLOC(
        queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes),
        context() + ", mapping it");
    if (mapped != data) {
        // A throwing constructor runs no destructor: undo the map here.
        CL_CHECK_NOTHROW(queue_.enqueueUnmapMemObject(buffer_, mapped), context() + ", unmapping");
        CL_CHECK_NOTHROW(queue_.finish(), context() + ", unmapping");
        ErrorInfo info;
        info.errc = Errc::invalid_argument;
        info.backend = "opencl";
        info.call = "clEnqueueMapBuffer";
        info.context = context();
        info.detail = "the driver mapped the range at " + detail::address_text(mapped) +
                      " instead of in place, so it keeps a copy of it rather than pinning the "
                      "application's memory; use Device::alloc_host on this device";
        detail::raise(std::move(info));
    }
    data_ = mapped;
}

HostBufferImpl::~HostBufferImpl() {
    // data_ is set last in the constructor, so a destroyed object was always mapped.
    CL_CHECK_NOTHROW(queue_.enqueueUnmapMemObject(buffer_, data_),
                     "unmapping a pinned host buffer of " + detail::format_bytes(bytes_) + " on " +
                         device_->describe());
    CL_CHECK_NOTHROW(queue_.finish(), "waiting for the unmap of a pinned host buffer on " +
                                          device_->describe());
}

const backend::DeviceImpl& HostBufferImpl::device() const { return *device_; }

NativeHandle HostBufferImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(buffer_());
}

}  // namespace dualrt::opencl
