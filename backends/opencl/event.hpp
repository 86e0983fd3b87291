// EventImpl: a point in a queue. The events of copies, fills and launches are "deferred": an
// enqueue asks the driver for no cl_event; its queue makes one only when the event may be needed.
#pragma once

#include "backend/backend.hpp"
#include "cl.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace dualrt::opencl {

class DeviceImpl;
class QueueImpl;

// The point after one enqueued command, or (timed) the point where QueueImpl::record() was called.
//
// An untimed event usually starts *pending*: it has no cl_event, because most programs drop the
// events of their enqueues, and asking for an event on a profiling queue is what makes an enqueue
// slow on some drivers (NVIDIA's). While it is pending it is its queue's last command, so a marker
// enqueued at the current end of the queue (clEnqueueMarkerWithWaitList without a wait list)
// completes exactly when the command does. Its queue enqueues that marker at the start of the
// next enqueue (QueueImpl keeps a weak pointer to the event), and this object does it, under the
// queue's mutex, when it is waited on, polled, waited for by a queue or asked for its native
// handle.
//
// Other events hold a cl_event from the start: the command's own for the blocking commands that
// wait for it (so that a failure names the command's status), a profiled marker for timed ones.
// The events of blocking reads and writes start *complete*: their call returned after the command
// finished, so waiting is free; a marker is made for them only when their native event is asked
// for (it completes later than the command, which is never wrong for the host or other queues).
//
// A wrapped event (wrap_event, wrap.cpp) is the application's cl_event, holding a reference of its
// own (borrowed) or the application's (adopted); it holds its device and the queue its command
// was enqueued on (none for a user event) instead of a QueueImpl.
//
// Every other event holds its QueueImpl (hence the cl_command_queue and the device), so it can be
// recorded, waited on and released after the public Queue is gone. Thread-safe.
class EventImpl final : public backend::EventImpl {
public:
    enum class Start { pending, complete };
    // An untimed event without a cl_event: pending (the queue sets its sequence) or complete.
    EventImpl(std::shared_ptr<QueueImpl> queue, Start start);
    // Which timestamp of its command a timed event reads: the end (every timed event but one),
    // or the start, for the first command of a timed span (QueueImpl::begin_timed_span).
    enum class Stamp { end, start };
    // A timed event reading `stamp` of a command not yet enqueued: its queue hands it that
    // command's cl_event (set_recorded) when it is enqueued.
    EventImpl(std::shared_ptr<QueueImpl> queue, Stamp stamp);
    // An event holding `event` from the start. `timed`: whether it is a timing point
    // (QueueImpl::record); the queue profiles every command, but only timed events are offered
    // for timing, as on CUDA.
    EventImpl(std::shared_ptr<QueueImpl> queue, cl::Event event, bool timed);
    // The application's `event` of `device`'s context (checked by the caller, wrap.cpp), which
    // carries the reference this object releases. `command_queue`: the queue of its command,
    // flushed before other queues wait for it (empty for a user event). `timestamps`: whether
    // the driver profiles it (a command of a queue with CL_QUEUE_PROFILING_ENABLE).
    EventImpl(std::shared_ptr<DeviceImpl> device, cl::Event event,
              cl::CommandQueue command_queue, bool timestamps);

    const backend::DeviceImpl& device() const override;
    // Blocks until the command completed. Throws Errc::backend_failure naming the status when the
    // command (for a pending event: the marker after it) failed.
    void wait() override;
    // Never blocks. Flushes the command's queue while the command is still only queued, so that
    // polling makes progress. Throws Errc::backend_failure naming the status when it failed.
    bool is_complete() override;
    bool timed() const override { return timed_; }
    // Waits for both events, then (this event's timestamp - start's) in milliseconds, each from
    // CL_PROFILING_COMMAND_END of its command (CL_PROFILING_COMMAND_START for Stamp::start); 0
    // where two record()s of one queue read out of order (see the definition).
    // Errc::invalid_argument, before waiting, when either carries no timestamp (a wrapped queue
    // without CL_QUEUE_PROFILING_ENABLE, a wrapped user event).
    double elapsed_ms_since(backend::EventImpl& start) override;
    NativeHandle native_handle() const override;  // cl_event, owned by this object

    // --- for QueueImpl ---

    // The cl_event, enqueueing a marker for it first when there is none. Throws dualrt::Error.
    const cl::Event& cl_event() const;
    // Submits the queue this event's command is in (clFlush; does not block), as OpenCL requires
    // before another queue waits on the event.
    void flush_queue() const;
    bool recorded() const noexcept { return recorded_.load(std::memory_order_acquire); }
    // Whether the event has no cl_event yet and is its queue's last command (not a complete one).
    bool pending() const noexcept { return !complete_ && !recorded() && !finished(); }
    // Whether a wait found the command complete by finishing its queue (so it needs no marker).
    bool finished() const noexcept { return finished_.load(std::memory_order_acquire); }
    // Once a wait or a poll has seen the command complete, later ones ask the driver nothing: the
    // staging pool polls the events of its idle buffers on every copy.
    bool seen_complete() const noexcept { return seen_complete_.load(std::memory_order_acquire); }
    // The enqueue number of a pending event's command on its queue. Read and written under the
    // queue's mutex.
    std::uint64_t sequence() const noexcept { return sequence_; }
    void set_sequence(std::uint64_t sequence) noexcept { sequence_ = sequence; }
    // `event` (a marker) has just been enqueued for this event. Under the queue's mutex.
    void set_recorded(cl::Event event) const noexcept;
    // This event is its queue's `order`-th timed record() (from 1), before anyone holds it.
    void set_record_order(std::uint64_t order) noexcept { record_order_ = order; }

private:
    std::string describe() const;
    [[noreturn]] void raise_failed_command(cl_int status) const;
    cl_ulong stamp_ns();  // CL_PROFILING_COMMAND_END, or _START for Stamp::start
    bool wrapped() const noexcept { return queue_ == nullptr; }
    const DeviceImpl& owner() const;  // the queue's device, or a wrapped event's own
    // Whether the driver keeps a timestamp for this event; if not, why, for elapsed_ms_since.
    bool has_timestamps() const;
    std::string why_no_timestamps() const;

    std::shared_ptr<QueueImpl> queue_;  // null for a wrapped event
    // A wrapped event's device and the queue of its command (empty for a user event).
    std::shared_ptr<DeviceImpl> wrapped_device_;
    cl::CommandQueue wrapped_queue_;
    bool wrapped_timestamps_ = false;
    std::uint64_t sequence_ = 0;
    // Set once, under the queue's mutex, before recorded_ is set (release); read without a lock
    // once recorded_ reads true (acquire). Mutable: making the marker on demand (native_handle()
    // const) does not change which point the event is.
    mutable cl::Event event_;
    mutable std::atomic<bool> recorded_{false};
    const bool complete_;  // a blocking read or write: done when this object was made
    std::atomic<bool> finished_{false};  // a wait finished its queue while it was the last command
    std::atomic<bool> seen_complete_{false};  // a wait returned, or a poll read CL_COMPLETE
    const bool timed_;
    const Stamp stamp_ = Stamp::end;
    std::uint64_t record_order_ = 0;  // 0: not a record() of its queue
};

}  // namespace dualrt::opencl
