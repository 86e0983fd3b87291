// EventImpl: a point in a queue. The events of copies, fills and launches are "deferred": an
// enqueue records no CUevent; its queue records one only when the event may be needed.
#pragma once

#include "backend/backend.hpp"

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace dualrt::cuda {

class DeviceImpl;
class QueueImpl;

// The point after one enqueued command, or (timed) the point where QueueImpl::record() was called.
//
// An untimed event starts *pending*: it has no CUevent, because most programs drop the events of
// their enqueues and recording one per enqueue would double the cost of a launch. While it is
// pending it is its queue's last command, so recording it at the current end of the stream marks
// exactly its point. Its queue does that at the start of the next enqueue (QueueImpl keeps a weak
// pointer to it), and this object does it, under the queue's mutex, when it is waited on, polled,
// waited for by a queue or asked for its native handle. The CUevent comes from the queue's
// EventPool (CU_EVENT_DISABLE_TIMING) and goes back there when this object dies.
//
// A timed event (QueueImpl::record()) takes a CUevent with timing from the queue's timed pool,
// recorded at once, and gives it back there when it dies.
//
// A wrapped event (wrap_event, wrap.cpp) is the application's CUevent, always recorded as far as
// this object knows; it holds its device instead of a queue, and is destroyed with this object
// when adopted, never when borrowed. It offers itself for timing (timed()); whether the driver
// timed it shows only when elapsed_ms_since asks.
//
// Every other event holds its QueueImpl (hence the stream, the pool and the device), so it can be
// recorded, waited on and released after the public Queue is gone. Thread-safe.
class EventImpl final : public backend::EventImpl {
public:
    // A pending event of a command `queue` is about to enqueue; the queue sets its sequence.
    explicit EventImpl(std::shared_ptr<QueueImpl> queue);
    // A timed event of `event`, from the queue's timed pool, which the caller records.
    EventImpl(std::shared_ptr<QueueImpl> queue, CUevent timed_event);
    // The application's `event` (checked by the caller, wrap.cpp) for `device`'s queues.
    EventImpl(std::shared_ptr<DeviceImpl> device, CUevent event, Ownership ownership);
    // Gives a pooled CUevent back to the queue, destroys an adopted one. Never throws.
    ~EventImpl() override;
    EventImpl(const EventImpl&) = delete;
    EventImpl& operator=(const EventImpl&) = delete;

    const backend::DeviceImpl& device() const override;
    // Blocks until the work before the event completed. Throws Errc::backend_failure when that
    // work failed (a kernel fault is reported here, by the first wait after it).
    void wait() override;
    bool is_complete() override;  // cuEventQuery: never blocks (records a pending event first)
    bool timed() const override { return timed_; }
    // cuEventElapsedTime: resolution about half a microsecond. A wrapped event that the driver
    // did not time (CU_EVENT_DISABLE_TIMING, or never recorded) is Errc::invalid_argument.
    double elapsed_ms_since(backend::EventImpl& start) override;
    NativeHandle native_handle() const override;  // CUevent, owned unless borrowed

    // --- for QueueImpl ---

    // The CUevent, recording the event first when it is pending. Throws dualrt::Error.
    CUevent cu_event() const;
    bool recorded() const noexcept { return recorded_.load(std::memory_order_acquire); }
    // The enqueue number of a pending event's command on its queue. Read and written under the
    // queue's mutex.
    std::uint64_t sequence() const noexcept { return sequence_; }
    void set_sequence(std::uint64_t sequence) noexcept { sequence_ = sequence; }
    // `event` (a pooled CUevent) has just been recorded for this event. Under the queue's mutex.
    void set_recorded(CUevent event) const noexcept;

private:
    std::string describe() const;
    // The device whose context the event's calls run in: the queue's, or a wrapped event's own.
    const DeviceImpl& owner() const;
    bool wrapped() const noexcept { return queue_ == nullptr; }
    // Once a wait or a poll has seen the event complete, later ones ask the driver nothing: the
    // staging pool polls the events of its idle buffers on every copy.
    bool seen_complete() const noexcept { return seen_complete_.load(std::memory_order_acquire); }
    void mark_complete() noexcept;

    std::shared_ptr<QueueImpl> queue_;          // null for a wrapped event
    std::shared_ptr<DeviceImpl> wrapped_device_;  // a wrapped event's device; else null
    bool owns_event_ = true;  // false for a borrowed event: never destroyed here
    std::uint64_t sequence_ = 0;
    // Written once, under the queue's mutex, before recorded_ is set (release); read without a
    // lock once recorded_ reads true (acquire). Mutable: recording a pending event on demand
    // (native_handle() const) does not change which point it is.
    mutable CUevent event_ = nullptr;
    mutable std::atomic<bool> recorded_{false};
    std::atomic<bool> seen_complete_{false};  // never set for a wrapped event
    const bool timed_;
};

}  // namespace dualrt::cuda
