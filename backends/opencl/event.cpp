// EventImpl: making markers for deferred events on demand, waiting on, polling and timing
// cl_events.
#include "event.hpp"

#include "check.hpp"
#include "device.hpp"
#include "queue.hpp"
#include "support/raise.hpp"

#include <cstdint>
#include <utility>

namespace dualrt::opencl {

EventImpl::EventImpl(std::shared_ptr<QueueImpl> queue, Start start)
    : queue_(std::move(queue)), complete_(start == Start::complete), timed_(false) {}

EventImpl::EventImpl(std::shared_ptr<QueueImpl> queue, Stamp stamp)
    : queue_(std::move(queue)), complete_(false), timed_(true), stamp_(stamp) {}

EventImpl::EventImpl(std::shared_ptr<QueueImpl> queue, cl::Event event, bool timed)
    : queue_(std::move(queue)), event_(std::move(event)), recorded_(true), complete_(false),
      timed_(timed) {}

EventImpl::EventImpl(std::shared_ptr<DeviceImpl> device, cl::Event event,
                     cl::CommandQueue command_queue, bool timestamps)
    : wrapped_device_(std::move(device)), wrapped_queue_(std::move(command_queue)),
      wrapped_timestamps_(timestamps), event_(std::move(event)), recorded_(true),
      complete_(false), timed_(true) {}

const DeviceImpl& EventImpl::owner() const {
    return wrapped() ? *wrapped_device_ : *queue_->opencl_device();
}

const backend::DeviceImpl& EventImpl::device() const { return owner(); }

std::string EventImpl::describe() const {
    return std::string(wrapped() ? "a wrapped event of " : "an event of ") + owner().describe();
}

bool EventImpl::has_timestamps() const {
    return wrapped() ? wrapped_timestamps_ : queue_->profiling();
}

std::string EventImpl::why_no_timestamps() const {
    if (!wrapped())
        return describe() + " was recorded on a queue wrapped without CL_QUEUE_PROFILING_ENABLE, "
                            "so OpenCL keeps no timestamps of its commands: create the queue with "
                            "CL_QUEUE_PROFILING_ENABLE to time work on it";
    return describe() + " is a user event or the command of a queue without "
                        "CL_QUEUE_PROFILING_ENABLE, so OpenCL keeps no timestamp of it";
}

void EventImpl::raise_failed_command(cl_int status) const {
    ErrorInfo info;
    // A command that failed while running: a fault on the device, as for a failed wait.
    info.errc = Errc::device_lost;
    info.backend = "opencl";
    info.call = "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)";
    info.code = status;
    info.code_name = error_name(status);
    info.context = describe();
    info.detail = std::string("the event's command failed with status ") + error_name(status) +
                  " (" + std::to_string(status) + "); commands waiting on it will not run";
    detail::raise(std::move(info));
}

void EventImpl::set_recorded(cl::Event event) const noexcept {
    event_ = std::move(event);
    recorded_.store(true, std::memory_order_release);
}

const cl::Event& EventImpl::cl_event() const {
    if (!recorded()) queue_->record_pending(*this);
    return event_;
}

void EventImpl::wait() {
    // Known to be done: nothing to wait for.
    if (complete_ || finished() || seen_complete()) return;
    // The usual round trip (enqueue, then wait for that command): finish the queue, as a plain
    // program does, instead of enqueueing a marker and waiting for it (half the time on NVIDIA).
    if (!recorded() && queue_->finish_if_last(*this)) {
        finished_.store(true, std::memory_order_release);
        return;
    }
    const cl::Event& event = cl_event();
    try {
        event.wait();
    } catch (const cl::Error& error) {
        // clWaitForEvents only says that some command failed; the event's status says how.
        if (error.err() == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
            const cl_int status =
                CL_CHECK(event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), describe());
            if (status < 0) raise_failed_command(status);
        }
        raise_cl_error(error, "event_.wait()", describe(), __FILE__, __LINE__,
                       CallKind::synchronization);
    }
    seen_complete_.store(true, std::memory_order_release);
}

void EventImpl::flush_queue() const {
    const cl::CommandQueue& queue = wrapped() ? wrapped_queue_ : queue_->cl_queue();
    if (queue() == nullptr) return;  // a user event: nothing to submit
    CL_CHECK(queue.flush(), "submitting the queue of " + describe());
}

bool EventImpl::is_complete() {
    if (complete_ || finished() || seen_complete()) return true;
    const cl::Event& event = cl_event();
    const cl_int status = CL_CHECK(event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>(), describe());
    if (status < 0) raise_failed_command(status);
    // A command may stay CL_QUEUED until its queue is flushed; polling alone would never end.
    if (status == CL_QUEUED) flush_queue();
    if (status != CL_COMPLETE) return false;
    seen_complete_.store(true, std::memory_order_release);
    return true;
}

cl_ulong EventImpl::stamp_ns() {
    if (stamp_ == Stamp::start)
        return CL_CHECK(cl_event().getProfilingInfo<CL_PROFILING_COMMAND_START>(),
                        "reading CL_PROFILING_COMMAND_START of " + describe());
    return CL_CHECK(cl_event().getProfilingInfo<CL_PROFILING_COMMAND_END>(),
                    "reading CL_PROFILING_COMMAND_END of " + describe());
}

double EventImpl::elapsed_ms_since(backend::EventImpl& start) {
    // Same device, hence same backend; both timed, so both hold their marker: checked by the core.
    auto& from = static_cast<EventImpl&>(start);
    for (const EventImpl* event : {static_cast<const EventImpl*>(&from),
                                   static_cast<const EventImpl*>(this)}) {
        if (event->has_timestamps()) continue;
        detail::raise_finding(Errc::invalid_argument, "opencl", "Event::elapsed_ms", 0, "",
                              "timing from " + from.describe() + " to " + describe(),
                              "the " + std::string(event == &from ? "start" : "end") +
                                  " event carries no timestamp: " + event->why_no_timestamps());
    }
    from.wait();
    wait();
    const cl_ulong begin_ns = from.stamp_ns();
    const cl_ulong finish_ns = stamp_ns();
    // Unsigned difference reinterpreted as signed: negative when this event ended first.
    auto delta_ns = static_cast<std::int64_t>(finish_ns - begin_ns);
    // A later record() of the same queue cannot end first: its marker waits for everything
    // enqueued before it, the earlier marker included. NVIDIA's OpenCL stamps a marker when it
    // notices it complete, and under load (the stress suite's eight threads) two can come out of
    // order by a few microseconds (docs/RELIABILITY.md); such a reading is the driver's, and
    // means 0.
    const bool ordered = queue_ != nullptr && queue_ == from.queue_ && from.record_order_ != 0 &&
                         record_order_ > from.record_order_;
    if (ordered && delta_ns < 0) delta_ns = 0;
    return static_cast<double>(delta_ns) / 1e6;
}

NativeHandle EventImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(cl_event()());
}

}  // namespace dualrt::opencl
