// EventImpl: a point in a queue, a CUevent recorded on the queue's stream.
#pragma once

#include "backend/backend.hpp"

#include <cuda.h>

#include <memory>
#include <string>

namespace dualrt::cuda {

class DeviceImpl;

// Owns one CUevent and keeps its device alive. Events of copies, fills and launches are created
// with CU_EVENT_DISABLE_TIMING, which makes recording and waiting cheaper; QueueImpl::record()
// makes timed ones. Thread-safe: the driver allows queries and waits from any thread.
class EventImpl final : public backend::EventImpl {
public:
    // Creates an event and records it at the current end of `stream` (a stream of `device`).
    // Throws dualrt::Error.
    static std::shared_ptr<EventImpl> record(std::shared_ptr<DeviceImpl> device, CUstream stream,
                                             bool timed);
    ~EventImpl() override;  // cuEventDestroy: fine while the event is pending. Never throws.
    EventImpl(const EventImpl&) = delete;
    EventImpl& operator=(const EventImpl&) = delete;

    const backend::DeviceImpl& device() const override;
    // Blocks until the work before the event completed. Throws Errc::backend_failure when that
    // work failed (a kernel fault is reported here, by the first wait after it).
    void wait() override;
    bool is_complete() override;  // cuEventQuery: never blocks
    bool timed() const override { return timed_; }
    // cuEventElapsedTime: resolution about half a microsecond.
    double elapsed_ms_since(backend::EventImpl& start) override;
    NativeHandle native_handle() const override;  // CUevent, owned by this object

    CUevent cu_event() const { return event_; }

private:
    EventImpl(std::shared_ptr<DeviceImpl> device, CUevent event, bool timed);
    std::string describe() const;

    std::shared_ptr<DeviceImpl> device_;
    CUevent event_;
    bool timed_;
};

}  // namespace dualrt::cuda
