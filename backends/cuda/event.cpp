// EventImpl: recording pending events on demand, waiting on, polling and timing CUevents.
#include "event.hpp"

#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "queue.hpp"
#include "support/raise.hpp"

#include <utility>

namespace dualrt::cuda {

EventImpl::EventImpl(std::shared_ptr<QueueImpl> queue)
    : queue_(std::move(queue)), timed_(false) {}

EventImpl::EventImpl(std::shared_ptr<QueueImpl> queue, CUevent timed_event)
    : queue_(std::move(queue)), event_(timed_event), recorded_(true), timed_(true) {}

EventImpl::EventImpl(std::shared_ptr<DeviceImpl> device, CUevent event, Ownership ownership)
    : wrapped_device_(std::move(device)), owns_event_(ownership == Ownership::adopt),
      event_(event), recorded_(true), timed_(true) {}

EventImpl::~EventImpl() {
    if (!recorded()) return;  // never recorded: owns no CUevent
    if (!wrapped()) {
        queue_->recycle(event_, timed_);
        return;
    }
    if (!owns_event_) return;  // borrowed: the application destroys it
    const DeviceImpl& device = owner();
    ScopedContext current(device.context(), ScopedContext::no_throw);
    CU_CHECK_NOTHROW(cuEventDestroy(event_), "destroying an event of " + device.describe());
}

const DeviceImpl& EventImpl::owner() const {
    return wrapped() ? *wrapped_device_ : *queue_->cuda_device();
}

const backend::DeviceImpl& EventImpl::device() const { return owner(); }

std::string EventImpl::describe() const {
    const char* kind = wrapped() ? "a wrapped" : timed_ ? "a timed" : "an";
    return std::string(kind) + " event of " + owner().describe();
}

void EventImpl::set_recorded(CUevent event) const noexcept {
    event_ = event;
    recorded_.store(true, std::memory_order_release);
}

CUevent EventImpl::cu_event() const {
    if (!recorded()) queue_->record_pending(*this);
    return event_;
}

void EventImpl::wait() {
    if (seen_complete()) return;
    const CUevent event = cu_event();
    ScopedContext current(owner().context());
    CU_CHECK(cuEventSynchronize(event), "waiting for " + describe());
    mark_complete();
}

bool EventImpl::is_complete() {
    if (seen_complete()) return true;
    const CUevent event = cu_event();
    ScopedContext current(owner().context());
    const CUresult status = cuEventQuery(event);
    if (status == CUDA_ERROR_NOT_READY) return false;
    CU_CHECK(status, "polling " + describe());
    mark_complete();
    return true;
}

void EventImpl::mark_complete() noexcept {
    // The application may record its own CUevent again: only dualrt's events stay complete.
    if (!wrapped()) seen_complete_.store(true, std::memory_order_release);
}

double EventImpl::elapsed_ms_since(backend::EventImpl& start) {
    // Same device, hence same backend; both timed (so recorded at creation) and complete:
    // checked by the core.
    auto& from = static_cast<EventImpl&>(start);
    ScopedContext current(owner().context());
    float ms = 0.0f;
    const CUresult status = cuEventElapsedTime(&ms, from.cu_event(), cu_event());
    // The driver's answer for an event without timing, which only a wrapped one can be here.
    if (status == CUDA_ERROR_INVALID_HANDLE && (wrapped() || from.wrapped()))
        detail::raise_finding(Errc::invalid_argument, "cuda", "cuEventElapsedTime(&ms, start, end)",
                              static_cast<std::int64_t>(status), error_name(status),
                              "timing from " + from.describe() + " to " + describe(),
                              "a wrapped CUevent carries no timestamp: it was created with "
                              "CU_EVENT_DISABLE_TIMING (cudaEventDisableTiming) or never "
                              "recorded; time between events created with timing, or from "
                              "Queue::record()");
    CU_CHECK(status, "timing from " + from.describe() + " to " + describe());
    return static_cast<double>(ms);
}

NativeHandle EventImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(cu_event());
}

}  // namespace dualrt::cuda
