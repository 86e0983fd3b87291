// EventImpl: recording, waiting on, polling and timing CUevents.
#include "event.hpp"

#include "check.hpp"
#include "context.hpp"
#include "device.hpp"

#include <utility>

namespace dualrt::cuda {

EventImpl::EventImpl(std::shared_ptr<DeviceImpl> device, CUevent event, bool timed)
    : device_(std::move(device)), event_(event), timed_(timed) {}

std::shared_ptr<EventImpl> EventImpl::record(std::shared_ptr<DeviceImpl> device, CUstream stream,
                                             bool timed) {
    ScopedContext current(device->context());
    CUevent event = nullptr;
    const unsigned flags = timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING;
    CU_CHECK(cuEventCreate(&event, flags), "creating an event on " + device->describe());
    // Owned from here on, so a failed record below does not leak it.
    std::shared_ptr<EventImpl> result(new EventImpl(std::move(device), event, timed));
    CU_CHECK(cuEventRecord(event, stream), "recording " + result->describe());
    return result;
}

EventImpl::~EventImpl() {
    ScopedContext current(device_->context(), ScopedContext::no_throw);
    CU_CHECK_NOTHROW(cuEventDestroy(event_), "destroying an event of " + device_->describe());
}

const backend::DeviceImpl& EventImpl::device() const { return *device_; }

std::string EventImpl::describe() const {
    return std::string(timed_ ? "a timed" : "an") + " event of " + device_->describe();
}

void EventImpl::wait() {
    ScopedContext current(device_->context());
    CU_CHECK(cuEventSynchronize(event_), "waiting for " + describe());
}

bool EventImpl::is_complete() {
    ScopedContext current(device_->context());
    const CUresult status = cuEventQuery(event_);
    if (status == CUDA_ERROR_NOT_READY) return false;
    CU_CHECK(status, "polling " + describe());
    return true;
}

double EventImpl::elapsed_ms_since(backend::EventImpl& start) {
    // Same device, hence same backend; both timed and complete: checked by the core.
    auto& from = static_cast<EventImpl&>(start);
    ScopedContext current(device_->context());
    float ms = 0.0f;
    CU_CHECK(cuEventElapsedTime(&ms, from.event_, event_),
             "timing from " + from.describe() + " to " + describe());
    return static_cast<double>(ms);
}

NativeHandle EventImpl::native_handle() const { return reinterpret_cast<NativeHandle>(event_); }

}  // namespace dualrt::cuda
