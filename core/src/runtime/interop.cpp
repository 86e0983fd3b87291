// Interop inwards (interop.hpp): the checks every backend would otherwise repeat (an empty device,
// a handle of the other backend, a null handle, sizes), then the backend's wrap hook, which
// checks what only its driver knows. Also the hooks' defaults for a backend without them.
#include <dualrt/interop.hpp>

#include "backend/backend.hpp"
#include "backend/backend_access.hpp"
#include "backend/backend_registry.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <exception>
#include <limits>
#include <memory>
#include <string>

namespace dualrt {
namespace {

// "a CUDA CUstream" / "an OpenCL cl_command_queue": what a handle of `kind` is on `backend`.
struct HandleKind {
    const char* cuda;
    const char* opencl;
    const char* name(Backend backend) const { return backend == Backend::cuda ? cuda : opencl; }
};
constexpr HandleKind context_kind{"CUcontext", "cl_context"};
constexpr HandleKind device_kind{"CUdevice", "cl_device_id"};
constexpr HandleKind queue_kind{"CUstream", "cl_command_queue"};
constexpr HandleKind memory_kind{"CUdeviceptr", "cl_mem"};
constexpr HandleKind event_kind{"CUevent", "cl_event"};

const char* helper_name(Backend backend) {
    return backend == Backend::cuda ? "dualrt::cuda_handle" : "dualrt::opencl_handle";
}

// Refuses a handle of the other backend, and a null one unless 0 is a valid handle of its kind
// (CUdevice 0 is the first GPU).
void check_handle(const char* operation, ForeignHandle handle, Backend expected,
                  const HandleKind& kind, const std::string& target, bool zero_is_valid = false) {
    if (handle.backend != expected)
        detail::raise_argument(operation, std::string("a handle of the ") +
                                              to_string(handle.backend) + " backend (a " +
                                              kind.name(handle.backend) + ", from " +
                                              helper_name(handle.backend) + ") was given for " +
                                              target + ", which expects a " + kind.name(expected) +
                                              " (from " + helper_name(expected) + ")");
    if (handle.value == 0 && !zero_is_valid)
        detail::raise_argument(operation, std::string("the ") + kind.name(expected) +
                                              " handle is null; expected a " +
                                              kind.name(expected) + " for " + target);
}

void require_device(const char* operation, const Device& device) {
    if (!device.valid())
        detail::raise_argument(operation, "the Device is empty (default-constructed)");
}

std::string device_target(const Device& device) {
    return "device " + detail::device_label(device.info());
}

// The Queues' share of a borrowed queue. The backend queue outlives the last Queue made around
// it for as long as anything holds one of its Events, the staging pool included (it keeps the
// last event of each staged copy until it lends that buffer again). An event still pending then
// (one that the queue has not recorded yet, see the backends' event.hpp) would be recorded on the
// application's queue at some later moment, perhaps after the application destroyed it. So when
// the last Queue goes, its pending event is recorded at once, which native_handle() does; from
// then on nothing touches the application's queue.
std::shared_ptr<backend::QueueImpl> sealed_when_unused(std::shared_ptr<backend::QueueImpl> impl) {
    backend::QueueImpl* queue = impl.get();
    return std::shared_ptr<backend::QueueImpl>(
        queue, [keep = std::move(impl)](backend::QueueImpl* unused) noexcept {
            try {
                static_cast<void>(unused->native_handle());
            } catch (const std::exception& e) {
                detail::log().warn("wrap_queue: recording the last event of a borrowed queue "
                                   "whose last Queue is gone failed: {}",
                                   e.what());
            }
        });
}

}  // namespace

const char* to_string(Ownership ownership) noexcept {
    switch (ownership) {
        case Ownership::borrow: return "borrow";
        case Ownership::adopt: return "adopt";
    }
    return "unknown";
}

Device wrap_device(ForeignHandle context, ForeignHandle device, Ownership ownership) {
    const char* op = "wrap_device";
    const Backend backend = context.backend;
    const std::string target = std::string("a ") + to_string(backend) + " context";
    check_handle(op, context, backend, context_kind, "the context of wrap_device");
    // CUdevice 0 is the first GPU; an OpenCL device is a pointer.
    check_handle(op, device, backend, device_kind, target, backend == Backend::cuda);
    auto& backend_impl = detail::backend_impl(backend);
    return Device(backend_impl.wrap_device(context.value, device.value, ownership));
}

Queue wrap_queue(const Device& device, ForeignHandle queue, Ownership ownership) {
    const char* op = "wrap_queue";
    require_device(op, device);
    check_handle(op, queue, device.backend(), queue_kind, device_target(device));
    auto impl = detail::backend_of(device)->wrap_queue(queue.value, ownership);
    if (ownership == Ownership::borrow) impl = sealed_when_unused(std::move(impl));
    return Queue(std::move(impl), detail::backend_of(device));
}

BufferView detail::wrap_buffer_bytes(const Device& device, ForeignHandle memory,
                                     std::size_t count, std::size_t elem_size,
                                     Ownership ownership) {
    const char* op = "wrap_buffer";
    require_device(op, device);
    check_handle(op, memory, device.backend(), memory_kind, device_target(device));
    if (count == 0) raise_argument(op, "count is 0; expected the number of elements (> 0)");
    if (count > std::numeric_limits<std::size_t>::max() / elem_size)
        raise_argument(op, std::to_string(count) + " elements of " + std::to_string(elem_size) +
                               " bytes overflow the address space");
    const std::size_t bytes = count * elem_size;
    return BufferView(
        detail::backend_of(device)->wrap_buffer(memory.value, bytes, ownership), 0, bytes);
}

Event wrap_event(const Device& device, ForeignHandle event, Ownership ownership) {
    const char* op = "wrap_event";
    require_device(op, device);
    check_handle(op, event, device.backend(), event_kind, device_target(device));
    return Event(detail::backend_of(device)->wrap_event(event.value, ownership));
}

namespace backend {
namespace {

[[noreturn]] void raise_cannot_wrap(const char* operation, const DeviceInfo& info,
                                    const char* what) {
    detail::raise_argument(operation,
                           "the " + std::string(to_string(info.backend)) +
                               " backend cannot wrap " + what + " (device " +
                               detail::device_label(info) + ")",
                           Errc::unavailable);
}

}  // namespace

std::shared_ptr<QueueImpl> DeviceImpl::wrap_queue(NativeHandle, Ownership) {
    raise_cannot_wrap("wrap_queue", info(), "native queues");
}

std::shared_ptr<BufferImpl> DeviceImpl::wrap_buffer(NativeHandle, std::size_t, Ownership) {
    raise_cannot_wrap("wrap_buffer", info(), "native device memory");
}

EventPtr DeviceImpl::wrap_event(NativeHandle, Ownership) {
    raise_cannot_wrap("wrap_event", info(), "native events");
}

std::shared_ptr<DeviceImpl> BackendImpl::wrap_device(NativeHandle, NativeHandle, Ownership) {
    detail::raise_argument("wrap_device", "this backend cannot wrap native contexts",
                           Errc::unavailable);
}

}  // namespace backend
}  // namespace dualrt
