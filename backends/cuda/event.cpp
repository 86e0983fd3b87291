// EventImpl: recording pending events on demand, waiting on, polling and timing CUevents.
#include "event.hpp"

#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "queue.hpp"

#include <utility>

namespace dualrt::cuda {

EventImpl::EventImpl(std::shared_ptr<QueueImpl> queue)
    : queue_(std::move(queue)), timed_(false) {}

EventImpl::EventImpl(std::shared_ptr<QueueImpl> queue, CUevent timed_event)
    : queue_(std::move(queue)), event_(timed_event), recorded_(true), timed_(true) {}

EventImpl::~EventImpl() {
    if (!recorded()) return;  // never recorded: owns no CUevent
    if (!timed_) {
        queue_->recycle(event_);
        return;
    }
    const DeviceImpl& device = *queue_->cuda_device();
    ScopedContext current(device.context(), ScopedContext::no_throw);
    CU_CHECK_NOTHROW(cuEventDestroy(event_), "destroying an event of " + device.describe());
}

const backend::DeviceImpl& EventImpl::device() const { return queue_->device(); }

std::string EventImpl::describe() const {
    return std::string(timed_ ? "a timed" : "an") + " event of " +
           queue_->cuda_device()->describe();
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
    const CUevent event = cu_event();
    ScopedContext current(queue_->cuda_device()->context());
    CU_CHECK(cuEventSynchronize(event), "waiting for " + describe());
}

bool EventImpl::is_complete() {
    const CUevent event = cu_event();
    ScopedContext current(queue_->cuda_device()->context());
    const CUresult status = cuEventQuery(event);
    if (status == CUDA_ERROR_NOT_READY) return false;
    CU_CHECK(status, "polling " + describe());
    return true;
}

double EventImpl::elapsed_ms_since(backend::EventImpl& start) {
    // Same device, hence same backend; both timed (so recorded at creation) and complete:
    // checked by the core.
    auto& from = static_cast<EventImpl&>(start);
    ScopedContext current(queue_->cuda_device()->context());
    float ms = 0.0f;
    CU_CHECK(cuEventElapsedTime(&ms, from.cu_event(), cu_event()),
             "timing from " + from.describe() + " to " + describe());
    return static_cast<double>(ms);
}

NativeHandle EventImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(cu_event());
}

}  // namespace dualrt::cuda
