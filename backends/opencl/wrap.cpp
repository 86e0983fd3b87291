// Interop: the OpenCL backend's side of wrap_device, wrap_queue, wrap_buffer and wrap_event
// (interop.hpp). Each asks the driver whether the handle belongs where it is meant to go, then
// makes the Impl around it.
//
// References: every check runs on a "probe", a CLHPP object that retains the handle for itself
// (so a refused handle is left exactly as it came). Once the checks pass, a borrowed handle keeps
// that probe, dualrt's own reference, released when dualrt is done; an adopted one is taken over
// with the application's reference (CLHPP's retainObject = false), which dualrt releases in its
// place. Either way the count the application sees is back where it was when dualrt lets go,
// less the adopted reference.
#include "backend.hpp"
#include "buffer.hpp"
#include "check.hpp"
#include "device.hpp"
#include "event.hpp"
#include "queue.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace dualrt::opencl {
namespace {

std::string handle_text(NativeHandle handle) {
    return detail::address_text(reinterpret_cast<const void*>(handle));
}

std::string handle_text(const void* handle) { return detail::address_text(handle); }

// A handle that is not what wrap_* needs: Errc::invalid_argument (or `errc`) naming the call
// that told, its code where it failed (CL_SUCCESS when it answered something else than needed).
[[noreturn]] void raise_wrong_handle(const char* call, cl_int code, std::string context,
                                     std::string detail, Errc errc = Errc::invalid_argument) {
    const bool failed = code != CL_SUCCESS;
    detail::raise_finding(errc, "opencl", call, code, failed ? error_name(code) : "",
                          std::move(context), std::move(detail));
}

// Runs `query` (CL_CHECKed calls on the application's handle). A failure there means that the
// handle is not what it should be: Errc::invalid_argument, `what_is_wrong` as its detail, the
// driver's call and code kept.
template <typename Query>
auto query_handle(Query&& query, const std::string& what_is_wrong) {
    try {
        return query();
    } catch (const Error& error) {
        ErrorInfo info = error.info();
        info.errc = Errc::invalid_argument;
        info.detail = what_is_wrong;
        detail::raise(std::move(info));
    }
}

// The object to keep: the probe itself (dualrt's reference) when borrowing, a new wrapper
// holding the application's reference when adopting.
template <typename Object>
Object keep(Object probe, Ownership ownership) {
    if (ownership == Ownership::borrow) return probe;
    return Object(probe(), false);  // the probe releases its own reference when it goes
}

std::string wrap_context_advice() {
    return "wrap that context first (dualrt::wrap_device(dualrt::opencl_handle(context), "
           "dualrt::opencl_handle(device), Ownership::borrow)) and wrap this handle on that "
           "Device";
}

// Refuses an object of another context than `device`'s, naming both.
void require_context(const DeviceImpl& device, const cl::Context& owner, const char* call,
                     const std::string& where) {
    if (owner() == device.context()()) return;
    raise_wrong_handle(call, CL_SUCCESS, where,
                       "the object belongs to cl_context " + handle_text(owner()) +
                           ", not to this device's context " +
                           handle_text(device.context()()) + "; " + wrap_context_advice());
}

}  // namespace

std::shared_ptr<backend::DeviceImpl> BackendImpl::wrap_device(NativeHandle context_handle,
                                                              NativeHandle device_handle,
                                                              Ownership ownership) {
    const std::string where = "wrapping cl_context " + handle_text(context_handle) +
                              " with cl_device_id " + handle_text(device_handle) + " (" +
                              to_string(ownership) + ")";
    const auto device_id = reinterpret_cast<cl_device_id>(device_handle);
    const DeviceImpl* listed = nullptr;
    for (const auto& device : devices_) {
        const auto& candidate = static_cast<const DeviceImpl&>(*device);
        if (candidate.cl_device()() == device_id) listed = &candidate;
    }
    if (listed == nullptr)
        raise_wrong_handle("wrap_device", CL_SUCCESS, where,
                           "cl_device_id " + handle_text(device_handle) +
                               " is not one of the " + std::to_string(devices_.size()) +
                               " OpenCL devices dualrt lists (sub-devices cannot be wrapped)",
                           Errc::not_found);
    const auto context = reinterpret_cast<cl_context>(context_handle);
    const cl::Context probe = query_handle(
        [&] { return CL_CHECK(cl::Context(context, true), where); },
        "not a valid cl_context (released, or not a context)");
    const auto members =
        query_handle([&] { return CL_CHECK(probe.getInfo<CL_CONTEXT_DEVICES>(), where); },
                     "cannot list the devices of the context");
    const bool holds = std::any_of(members.begin(), members.end(), [&](const cl::Device& d) {
        return d() == device_id;
    });
    if (!holds)
        raise_wrong_handle("clGetContextInfo(CL_CONTEXT_DEVICES)", CL_SUCCESS, where,
                           "the context does not hold device " +
                               detail::device_label(listed->info()) + " (it holds " +
                               std::to_string(members.size()) + " other device" +
                               (members.size() == 1 ? "" : "s") + ")");
    return std::make_shared<DeviceImpl>(listed->cl_device(), listed->info().platform,
                                        listed->info().index, keep(probe, ownership));
}

std::shared_ptr<backend::QueueImpl> DeviceImpl::wrap_queue(NativeHandle handle,
                                                           Ownership ownership) {
    const std::string where = "wrapping cl_command_queue " + handle_text(handle) + " (" +
                              to_string(ownership) + ") for " + describe();
    const auto queue = reinterpret_cast<cl_command_queue>(handle);
    const cl::CommandQueue probe = query_handle(
        [&] { return CL_CHECK(cl::CommandQueue(queue, true), where); },
        "not a valid cl_command_queue (released, or not a queue)");
    require_context(*this, CL_CHECK(probe.getInfo<CL_QUEUE_CONTEXT>(), where),
                    "clGetCommandQueueInfo(CL_QUEUE_CONTEXT)", where);
    if (CL_CHECK(probe.getInfo<CL_QUEUE_DEVICE>(), where)() != device_())
        raise_wrong_handle("clGetCommandQueueInfo(CL_QUEUE_DEVICE)", CL_SUCCESS, where,
                           "the queue runs on another device of the context, not on " +
                               detail::device_label(info_) +
                               "; wrap the context with that device (wrap_device)");
    const cl_command_queue_properties properties =
        CL_CHECK(probe.getInfo<CL_QUEUE_PROPERTIES>(), where);
    if ((properties & (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE)) != 0)
        raise_wrong_handle("clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)", CL_SUCCESS, where,
                           "the queue is out-of-order (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) or "
                           "a device queue; dualrt's queues run their work in order: wrap an "
                           "in-order host queue");
    const bool profiling = (properties & CL_QUEUE_PROFILING_ENABLE) != 0;
    return std::make_shared<QueueImpl>(self(), keep(probe, ownership), profiling);
}

std::shared_ptr<backend::BufferImpl> DeviceImpl::wrap_buffer(NativeHandle handle,
                                                             std::size_t bytes,
                                                             Ownership ownership) {
    const std::string where = "wrapping " + detail::format_bytes(bytes) + " of cl_mem " +
                              handle_text(handle) + " (" + to_string(ownership) + ") for " +
                              describe();
    const auto memory = reinterpret_cast<cl_mem>(handle);
    const cl::Buffer probe = query_handle(
        [&] { return CL_CHECK(cl::Buffer(memory, true), where); },
        "not a valid cl_mem (released, or not a memory object)");
    if (CL_CHECK(probe.getInfo<CL_MEM_TYPE>(), where) != CL_MEM_OBJECT_BUFFER)
        raise_wrong_handle("clGetMemObjectInfo(CL_MEM_TYPE)", CL_SUCCESS, where,
                           "the memory object is an image or a pipe; expected a buffer "
                           "(clCreateBuffer)");
    require_context(*this, CL_CHECK(probe.getInfo<CL_MEM_CONTEXT>(), where),
                    "clGetMemObjectInfo(CL_MEM_CONTEXT)", where);
    if (CL_CHECK(probe.getInfo<CL_MEM_ASSOCIATED_MEMOBJECT>(), where)() != nullptr)
        raise_wrong_handle("clGetMemObjectInfo(CL_MEM_ASSOCIATED_MEMOBJECT)", CL_SUCCESS, where,
                           "the buffer is a sub-buffer, of which OpenCL makes no further "
                           "sub-buffers (dualrt passes views to kernels as sub-buffers); wrap its "
                           "parent and take a view (Buffer::view) instead");
    const std::size_t size = CL_CHECK(probe.getInfo<CL_MEM_SIZE>(), where);
    if (bytes > size)
        raise_wrong_handle("clGetMemObjectInfo(CL_MEM_SIZE)", CL_SUCCESS, where,
                           detail::format_bytes(bytes) +
                               " reach past the buffer, whose CL_MEM_SIZE is " +
                               std::to_string(size) + " bytes",
                           Errc::out_of_range);
    return std::make_shared<BufferImpl>(self(), keep(probe, ownership), bytes,
                                        BufferImpl::wrapped);
}

backend::EventPtr DeviceImpl::wrap_event(NativeHandle handle, Ownership ownership) {
    const std::string where = "wrapping cl_event " + handle_text(handle) + " (" +
                              to_string(ownership) + ") for " + describe();
    const auto event = reinterpret_cast<cl_event>(handle);
    const cl::Event probe = query_handle(
        [&] { return CL_CHECK(cl::Event(event, true), where); },
        "not a valid cl_event (released, or not an event)");
    require_context(*this, CL_CHECK(probe.getInfo<CL_EVENT_CONTEXT>(), where),
                    "clGetEventInfo(CL_EVENT_CONTEXT)", where);
    // A user event has no queue, hence no timestamps; a command has them where its queue
    // profiles.
    cl::CommandQueue command_queue = CL_CHECK(probe.getInfo<CL_EVENT_COMMAND_QUEUE>(), where);
    bool timestamps = false;
    if (command_queue() != nullptr)
        timestamps = (CL_CHECK(command_queue.getInfo<CL_QUEUE_PROPERTIES>(), where) &
                      CL_QUEUE_PROFILING_ENABLE) != 0;
    return std::make_shared<EventImpl>(self(), keep(probe, ownership),
                                       std::move(command_queue), timestamps);
}

}  // namespace dualrt::opencl
