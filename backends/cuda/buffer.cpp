// Device buffers and pinned host buffers.
#include "buffer.hpp"

#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "support/raise.hpp"

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

BufferImpl::BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes, MappedHost)
    : device_(std::move(device)), bytes_(bytes) {
    ScopedContext current(device_->context());
    const auto context = [&] { return allocation_context(*device_, "mapped host buffer", bytes); };
    // PORTABLE: pinned for every context, like HostBufferImpl. DEVICEMAP: in the device's
    // address space. Not WRITECOMBINED: the host reads results back from it, and WC reads are
    // uncached and slow.
    CU_CHECK_ALLOC(cuMemHostAlloc(&host_, bytes,
                                  CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
                   context());
    const CUresult mapped = cuMemHostGetDevicePointer(&address_, host_, 0);
    if (mapped != CUDA_SUCCESS) {
        // The destructor does not run for a half-built object: free the pinning here.
        CU_CHECK_NOTHROW(cuMemFreeHost(host_), context() + ", after its device pointer failed");
        raise_cu_error(mapped, "cuMemHostGetDevicePointer(&address_, host_, 0)",
                       context() + ", reading its device pointer", __FILE__, __LINE__,
                       CallKind::other);
    }
}

BufferImpl::BufferImpl(std::shared_ptr<DeviceImpl> device, CUdeviceptr address, std::size_t bytes,
                       Ownership ownership, Wrapped)
    : device_(std::move(device)), bytes_(bytes), address_(address),
      owned_(ownership == Ownership::adopt) {}

BufferImpl::~BufferImpl() {
    if (!owned_) return;  // borrowed: the application frees it
    ScopedContext current(device_->context(), ScopedContext::no_throw);
    if (allocation_ != 0) {
        free_exportable();
        return;
    }
    if (host_ != nullptr) {
        CU_CHECK_NOTHROW(cuMemFreeHost(host_), "freeing a mapped host buffer of " +
                                                   detail::format_bytes(bytes_) + " on " +
                                                   device_->describe());
        return;
    }
    CU_CHECK_NOTHROW(cuMemFree(address_), "freeing a device buffer of " +
                                               detail::format_bytes(bytes_) + " on " +
                                               device_->describe());
}

void BufferImpl::raise_held_by_host() const {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = "cuda";
    info.call = "a command using MappedBuffer::device_view()";
    info.context = "mapped host buffer of " + detail::format_bytes(bytes_) + " on " +
                   device_->describe();
    info.detail = "the host holds this mapped buffer (a HostAccess from MappedBuffer::host() is "
                  "alive); release the HostAccess before enqueueing device work that uses it";
    detail::raise(std::move(info));
}

const backend::DeviceImpl& BufferImpl::device() const { return *device_; }

NativeHandle BufferImpl::native_handle() const { return static_cast<NativeHandle>(address_); }

HostBufferImpl::HostBufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes)
    : device_(std::move(device)), bytes_(bytes) {
    ScopedContext current(device_->context());
    CU_CHECK_ALLOC(cuMemHostAlloc(&data_, bytes, CU_MEMHOSTALLOC_PORTABLE),
                   allocation_context(*device_, "pinned host buffer", bytes));
}

HostBufferImpl::HostBufferImpl(std::shared_ptr<DeviceImpl> device, void* data, std::size_t bytes,
                               Register)
    : device_(std::move(device)), bytes_(bytes), data_(data), registered_(true) {
    ScopedContext current(device_->context());
    const auto context = [&] {
        return "registering " + detail::format_bytes(bytes) + " of host memory at " +
               detail::address_text(data) + " with " + device_->describe();
    };
    // PORTABLE: pinned for every context, like cuMemHostAlloc's buffers.
    const CUresult result = cuMemHostRegister(data, bytes, CU_MEMHOSTREGISTER_PORTABLE);
    if (result == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED) {
        ErrorInfo info;
        info.errc = Errc::invalid_argument;
        info.backend = "cuda";
        info.call = "cuMemHostRegister(data, bytes, CU_MEMHOSTREGISTER_PORTABLE)";
        info.code = static_cast<std::int64_t>(result);
        info.code_name = error_name(result);
        info.context = context();
        info.detail = "part of this range is pinned already, outside dualrt (cudaHostRegister or "
                      "another library); a range is pinned once: unregister it there first";
        detail::raise(std::move(info));
    }
    CU_CHECK_ALLOC(result, context());
}

HostBufferImpl::~HostBufferImpl() {
    ScopedContext current(device_->context(), ScopedContext::no_throw);
    if (registered_) {
        CU_CHECK_NOTHROW(cuMemHostUnregister(data_), "unregistering " +
                                                         detail::format_bytes(bytes_) +
                                                         " of host memory from " +
                                                         device_->describe());
        return;
    }
    CU_CHECK_NOTHROW(cuMemFreeHost(data_), "freeing a pinned host buffer of " +
                                               detail::format_bytes(bytes_) + " on " +
                                               device_->describe());
}

const backend::DeviceImpl& HostBufferImpl::device() const { return *device_; }

NativeHandle HostBufferImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(data_);
}

}  // namespace dualrt::cuda
