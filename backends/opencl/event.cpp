// EventImpl: waiting on, polling and timing the cl::Event of an enqueued command.
#include "event.hpp"

#include "check.hpp"
#include "device.hpp"
#include "errors.hpp"

#include <cstdint>
#include <utility>

namespace dualrt::opencl {

EventImpl::EventImpl(std::shared_ptr<DeviceImpl> device, cl::CommandQueue queue, cl::Event event,
                     bool timed)
    : device_(std::move(device)), queue_(std::move(queue)), event_(std::move(event)),
      timed_(timed) {}

const backend::DeviceImpl& EventImpl::device() const { return *device_; }

std::string EventImpl::describe() const { return "an event of " + device_->describe(); }

void EventImpl::raise_failed_command(cl_int status) const {
    ErrorInfo info;
    info.errc = Errc::backend_failure;
    info.backend = "opencl";
    info.call = "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)";
    info.code = status;
    info.code_name = error_name(status);
    info.context = describe();
    info.detail = std::string("the event's command failed with status ") + error_name(status) +
                  " (" + std::to_string(status) + "); commands waiting on it will not run";
    detail::raise(std::move(info));
}

void EventImpl::wait() {
    try {
        event_.wait();
    } catch (const cl::Error& error) {
        // clWaitForEvents only says that some command failed; the event's status says how.
        if (error.err() == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
            const cl_int status =
                CL_CHECK(event_.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), describe());
            if (status < 0) raise_failed_command(status);
        }
        raise_cl_error(error, "event_.wait()", describe(), __FILE__, __LINE__, CallKind::other);
    }
}

void EventImpl::flush_queue() const {
    CL_CHECK(queue_.flush(), "submitting the queue of " + describe());
}

bool EventImpl::is_complete() {
    const cl_int status = CL_CHECK(event_.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), describe());
    if (status < 0) raise_failed_command(status);
    // A command may stay CL_QUEUED until its queue is flushed; polling alone would never end.
    if (status == CL_QUEUED) flush_queue();
    return status == CL_COMPLETE;
}

cl_ulong EventImpl::end_ns() {
    return CL_CHECK(event_.getProfilingInfo<CL_PROFILING_COMMAND_END>(),
                    "reading CL_PROFILING_COMMAND_END of " + describe());
}

double EventImpl::elapsed_ms_since(backend::EventImpl& start) {
    // Same device, hence same backend: checked by the core.
    auto& from = static_cast<EventImpl&>(start);
    from.wait();
    wait();
    const cl_ulong begin_ns = from.end_ns();
    const cl_ulong finish_ns = end_ns();
    // Unsigned difference reinterpreted as signed: negative when this event ended first.
    const auto delta_ns = static_cast<std::int64_t>(finish_ns - begin_ns);
    return static_cast<double>(delta_ns) / 1e6;
}

NativeHandle EventImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(event_());
}

}  // namespace dualrt::opencl
