// Interop: the CUDA backend's side of wrap_device, wrap_queue, wrap_buffer and wrap_event
// (interop.hpp). Each asks the driver whether the handle belongs where it is meant to go, then
// makes the Impl around it; the Impls' wrapped constructors own or borrow it. Nothing is taken
// over before every check has passed, so a refused handle stays the application's.
//
// A stream or device memory must belong to the Device's own context: kernels are modules loaded
// in that context, and CUDA refuses a launch into a stream of another context (and memory of
// another context is not addressable there without peer access, even on the same GPU). A stream
// or allocation of another context of the same GPU is therefore refused, with the advice to wrap
// that context first (wrap_device). Events are the exception: CUDA lets a stream wait for an event
// of any context (cuStreamWaitEvent), and offers no way to ask an event's context anyway.
#include "backend.hpp"
#include "buffer.hpp"
#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "event.hpp"
#include "queue.hpp"
#include "support/raise.hpp"

#include <string>
#include <utility>

namespace dualrt::cuda {
namespace {

std::string handle_text(NativeHandle handle) {
    return detail::address_text(reinterpret_cast<const void*>(handle));
}

// A handle the driver says is not what wrap_* needs: Errc::invalid_argument (or `errc`), with
// the driver's code where one call failed (`code` CUDA_SUCCESS when the call succeeded and its
// answer was the wrong one).
[[noreturn]] void raise_wrong_handle(const char* call, CUresult code, std::string context,
                                     std::string detail, Errc errc = Errc::invalid_argument) {
    const bool failed = code != CUDA_SUCCESS;
    detail::raise_finding(errc, "cuda", call, failed ? static_cast<std::int64_t>(code) : 0,
                          failed ? error_name(code) : "", std::move(context), std::move(detail));
}

std::string wrap_context_advice() {
    return "wrap that context first (dualrt::wrap_device(dualrt::cuda_handle(context), "
           "dualrt::cuda_handle(device), Ownership::borrow)) and wrap this handle on that Device";
}

// The CUdevice `context` belongs to; Errc::invalid_argument when it is not a valid context.
CUdevice device_of_context(CUcontext context, const std::string& where) {
    CUdevice device = 0;
    const CUresult status = cuCtxGetDevice_v2(&device, context);
    if (status != CUDA_SUCCESS)
        raise_wrong_handle("cuCtxGetDevice_v2(&device, context)", status, where,
                           "CUcontext " + handle_text(reinterpret_cast<NativeHandle>(context)) +
                               " is not a valid CUDA context (destroyed, or not a context)");
    return device;
}

// Whether `context` is `device`'s primary context (which is released, not destroyed).
bool is_primary_context(CUdevice device, CUcontext context, const std::string& where) {
    unsigned flags = 0;
    int active = 0;
    CU_CHECK(cuDevicePrimaryCtxGetState(device, &flags, &active), where);
    if (active == 0) return false;  // a primary context nobody retains is not a valid handle
    // Retaining an active primary context only counts one more user; released again at once.
    CUcontext primary = nullptr;
    CU_CHECK(cuDevicePrimaryCtxRetain(&primary, device), where);
    CU_CHECK(cuDevicePrimaryCtxRelease(device), where);
    return primary == context;
}

}  // namespace

std::shared_ptr<backend::DeviceImpl> BackendImpl::wrap_device(NativeHandle context_handle,
                                                              NativeHandle device_handle,
                                                              Ownership ownership) {
    const std::string where = "wrapping CUcontext " + handle_text(context_handle) +
                              " of CUdevice " + std::to_string(device_handle) + " (" +
                              to_string(ownership) + ")";
    const DeviceImpl* listed = nullptr;
    for (const auto& device : devices_) {
        const auto& candidate = static_cast<const DeviceImpl&>(*device);
        if (static_cast<NativeHandle>(candidate.cu_device()) == device_handle) listed = &candidate;
    }
    if (listed == nullptr)
        raise_wrong_handle("wrap_device", CUDA_SUCCESS, where,
                           "CUdevice " + std::to_string(device_handle) +
                               " is not one of the CUDA devices this process sees (CUdevice 0 to " +
                               std::to_string(devices_.size() - 1) + ")",
                           Errc::not_found);
    const auto context = reinterpret_cast<CUcontext>(context_handle);
    const CUdevice owner = device_of_context(context, where);
    if (owner != listed->cu_device())
        raise_wrong_handle("cuCtxGetDevice_v2(&device, context)", CUDA_SUCCESS, where,
                           "the context belongs to CUdevice " + std::to_string(owner) +
                               ", not to CUdevice " + std::to_string(device_handle) +
                               " given with it");
    const DeviceImpl::WrappedContext wrapped{context, ownership,
                                             is_primary_context(owner, context, where)};
    return std::make_shared<DeviceImpl>(listed->cu_device(), listed->info().index,
                                        driver_version_, wrapped);
}

std::shared_ptr<backend::QueueImpl> DeviceImpl::wrap_queue(NativeHandle handle,
                                                           Ownership ownership) {
    const auto stream = reinterpret_cast<CUstream>(handle);
    const std::string where = "wrapping CUstream " + handle_text(handle) + " (" +
                              to_string(ownership) + ") for " + describe();
    if (stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)
        raise_wrong_handle("wrap_queue", CUDA_SUCCESS, where,
                           "CUDA's legacy and per-thread default streams (CU_STREAM_LEGACY, "
                           "CU_STREAM_PER_THREAD) belong to no one and cannot be wrapped; create "
                           "a stream (cuStreamCreate, cudaStreamCreate) and wrap that");
    ScopedContext current(context());
    CUcontext owner = nullptr;
    const CUresult status = cuStreamGetCtx(stream, &owner);
    if (status != CUDA_SUCCESS)
        raise_wrong_handle("cuStreamGetCtx(stream, &context)", status, where,
                           "not a valid CUDA stream (destroyed, or not a stream)");
    if (owner != context())
        raise_wrong_handle("cuStreamGetCtx(stream, &context)", CUDA_SUCCESS, where,
                           "the stream belongs to CUDA context " +
                               handle_text(reinterpret_cast<NativeHandle>(owner)) +
                               " (of CUdevice " + std::to_string(device_of_context(owner, where)) +
                               "), not to this device's context " +
                               handle_text(reinterpret_cast<NativeHandle>(context())) + "; " +
                               wrap_context_advice());
    return std::make_shared<QueueImpl>(self(), stream, ownership);
}

std::shared_ptr<backend::BufferImpl> DeviceImpl::wrap_buffer(NativeHandle handle,
                                                             std::size_t bytes,
                                                             Ownership ownership) {
    const auto address = static_cast<CUdeviceptr>(handle);
    const std::string where = "wrapping " + detail::format_bytes(bytes) + " at CUdeviceptr " +
                              handle_text(handle) + " (" + to_string(ownership) + ") for " +
                              describe();
    ScopedContext current(context());
    int ordinal = -1;
    CUresult status = cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address);
    if (status != CUDA_SUCCESS)
        raise_wrong_handle("cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)", status,
                           where,
                           "not an address CUDA knows; expected device memory from cuMemAlloc "
                           "or cudaMalloc");
    if (ordinal != info_.index)
        raise_wrong_handle("cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)",
                           CUDA_SUCCESS, where,
                           "the memory is on CUDA device " + std::to_string(ordinal) +
                               ", not on this device (" + std::to_string(info_.index) + ")");
    // Memory of a stream-ordered pool (cuMemAllocAsync) names no context: the ordinal decides.
    CUcontext owner = nullptr;
    CU_CHECK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, address), where);
    if (owner != nullptr && owner != context())
        raise_wrong_handle("cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_CONTEXT)", CUDA_SUCCESS,
                           where,
                           "the memory was allocated in CUDA context " +
                               handle_text(reinterpret_cast<NativeHandle>(owner)) +
                               ", not in this device's context " +
                               handle_text(reinterpret_cast<NativeHandle>(context())) + "; " +
                               wrap_context_advice());
    CUdeviceptr base = 0;
    std::size_t size = 0;
    status = cuMemGetAddressRange(&base, &size, address);
    if (status != CUDA_SUCCESS)
        raise_wrong_handle("cuMemGetAddressRange(&base, &size, pointer)", status, where,
                           "the pointer is not inside a device allocation (registered or mapped "
                           "host memory?); expected device memory from cuMemAlloc or cudaMalloc");
    const std::size_t available = static_cast<std::size_t>(base + size - address);
    if (bytes > available)
        raise_wrong_handle("cuMemGetAddressRange(&base, &size, pointer)", CUDA_SUCCESS, where,
                           detail::format_bytes(bytes) + " reach past the allocation: it holds " +
                               std::to_string(available) + " bytes from this pointer (" +
                               std::to_string(size) + " bytes from its start at " +
                               handle_text(static_cast<NativeHandle>(base)) + ")",
                           Errc::out_of_range);
    if (ownership == Ownership::adopt && address != base)
        raise_wrong_handle("cuMemGetAddressRange(&base, &size, pointer)", CUDA_SUCCESS, where,
                           "an adopted allocation is freed with cuMemFree, which needs its start " +
                               handle_text(static_cast<NativeHandle>(base)) +
                               ", not a pointer inside it; adopt the start, or borrow");
    return std::make_shared<BufferImpl>(self(), address, bytes, ownership,
                                        BufferImpl::wrapped);
}

backend::EventPtr DeviceImpl::wrap_event(NativeHandle handle, Ownership ownership) {
    const auto event = reinterpret_cast<CUevent>(handle);
    ScopedContext current(context());
    const CUresult status = cuEventQuery(event);
    if (status != CUDA_SUCCESS && status != CUDA_ERROR_NOT_READY)
        raise_wrong_handle("cuEventQuery(event)", status,
                           "wrapping CUevent " + handle_text(handle) + " (" +
                               to_string(ownership) + ") for " + describe(),
                           "not a valid CUDA event (destroyed, or not an event)");
    return std::make_shared<EventImpl>(self(), event, ownership);
}

}  // namespace dualrt::cuda
