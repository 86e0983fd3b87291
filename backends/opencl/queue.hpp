// QueueImpl: an in-order cl::CommandQueue with profiling, for copies, fills and kernel launches.
#pragma once

#include "backend/backend.hpp"
#include "cl.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dualrt::opencl {

class DeviceImpl;
class EventImpl;

// Owns one in-order command queue created with CL_QUEUE_PROFILING_ENABLE on its device's context
// (record() needs timestamps), or wraps the application's (wrap_queue, wrap.cpp). Every enqueue
// returns a *pending* EventImpl (see event.hpp): the command is enqueued without a cl_event, and
// a marker is enqueued for it only if the caller keeps the event, so a loop of launches whose
// events are dropped costs the driver's enqueue and a little bookkeeping. With Sync::blocking the
// call returns after the command completed. (DUALRT_SYNC is handled by the core for every
// backend.)
//
// Thread-safe: one mutex orders each enqueue with the marker of the previous enqueue's event
// (which must land between the two commands); it is held for the driver's enqueue call and a few
// pointer updates, never while waiting. Launches of one kernel are also serialised by the
// kernel's launch mutex, taken before this one. Create it with std::make_shared: its events hold
// it.
class QueueImpl final : public backend::QueueImpl,
                        public std::enable_shared_from_this<QueueImpl> {
public:
    // Creates the queue (and the device's context on first use), with CL_QUEUE_PROFILING_ENABLE
    // when `timed`. Without, record() is mark(), and the driver keeps no timestamps: NVIDIA's
    // charges about 8 us for each event of a profiling queue. Throws dualrt::Error.
    QueueImpl(std::shared_ptr<DeviceImpl> device, bool timed);
    // The application's in-order `queue` of the device's context and device (checked by the
    // caller, wrap.cpp). `queue` carries the reference this object releases: dualrt's own for a
    // borrowed queue, the application's for an adopted one. `profiling`: whether it was created
    // with CL_QUEUE_PROFILING_ENABLE; without, record()'s events order work but carry no
    // timestamps (EventImpl::elapsed_ms_since says so).
    QueueImpl(std::shared_ptr<DeviceImpl> device, cl::CommandQueue queue, bool profiling);
    // Runs when the public Queue and every event of this queue are gone.
    ~QueueImpl() override = default;
    QueueImpl(const QueueImpl&) = delete;
    QueueImpl& operator=(const QueueImpl&) = delete;

    const backend::DeviceImpl& device() const override;
    backend::EventPtr copy_to_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                     const void* src, std::size_t bytes, Sync sync) override;
    backend::EventPtr copy_to_host(void* dst, backend::BufferImpl& src, std::size_t src_offset,
                                   std::size_t bytes, Sync sync) override;
    backend::EventPtr copy_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                  backend::BufferImpl& src, std::size_t src_offset,
                                  std::size_t bytes, Sync sync) override;
    backend::EventPtr fill(backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
                           const void* pattern, std::size_t pattern_size, Sync sync) override;
    backend::EventPtr launch(backend::KernelImpl& kernel, const backend::LaunchGeometry& geometry,
                             backend::KernelArgs args) override;
    backend::EventPtr record() override;           // clEnqueueMarkerWithWaitList
    // The last enqueue's event, or a pending one at the same point: its marker is made only when
    // someone waits for it, and no flush comes with it (a waiting queue flushes this one).
    backend::EventPtr mark() override;
    // A span timed by its commands' own events (CL_PROFILING_COMMAND_START of the first,
    // CL_PROFILING_COMMAND_END of the last): every command of an open span is enqueued with its
    // own event, as a kept event costs. On a queue without profiling: record().
    bool times_commands() const override { return profiling_; }
    backend::EventPtr begin_timed_span() override;
    backend::EventPtr end_timed_span() override;
    void wait_for(backend::EventImpl& event) override;  // clEnqueueBarrierWithWaitList
    // clFinish: blocks. Makes the marker of the last enqueue's pending event first, so that the
    // event reads complete afterwards.
    void finish() override;
    // clFlush: the commands enqueued so far start, with no marker for a pending event.
    void submit() override;
    // cl_command_queue, owned by this object. Makes the marker of the last enqueue's pending event
    // first, so that commands the caller adds to the queue natively do not delay that event.
    NativeHandle native_handle() const override;

    // --- for recordings (recording.hpp) ---

    // Enqueues a replay in this queue's order like any command: `commands(queue, event)`
    // enqueues its commands on `queue`, asking for the last one's event where `event` is not
    // null. Returns the replay's event, pending as every enqueue's.
    backend::EventPtr enqueue_replay(
        const std::function<void(const cl::CommandQueue&, cl::Event*)>& commands);

    // --- for EventImpl ---

    const std::shared_ptr<DeviceImpl>& opencl_device() const { return device_; }
    const cl::CommandQueue& cl_queue() const { return queue_; }
    // Whether the driver keeps timestamps of this queue's commands (CL_QUEUE_PROFILING_ENABLE).
    bool profiling() const noexcept { return profiling_; }
    // Enqueues a marker for `event` at the current end of the queue unless it has a cl_event
    // already. Throws dualrt::Error.
    void record_pending(const EventImpl& event);
    // For EventImpl::wait: when `event` is pending and still this queue's last command, waits for
    // the queue with clFinish (what a plain program's round trip does: no marker, no cl_event)
    // and returns true; otherwise returns false at once. Blocks.
    bool finish_if_last(const EventImpl& event);

private:
    // "queue of OpenCL device 0 'NAME'" plus `what`, for error contexts (built only on failure).
    std::string describe(const std::string& what) const;
    // Runs `command(cl::Event* event)`, which enqueues one command on queue_ (asking for its
    // event when `event` is not null) and throws on failure, and returns its event: pending, or
    // with `wait` (a blocking call whose OpenCL command has no blocking flag of its own) the
    // command's own event, waited for after unlocking.
    template <typename Command>
    backend::EventPtr enqueue(bool wait, Command&& command);
    // For a read or write with CL_TRUE: runs `command` (which returns once the command completed)
    // outside the mutex, and returns a complete event.
    template <typename Command>
    backend::EventPtr enqueue_blocking_transfer(Command&& command);
    // Under mutex_: enqueues a marker for the pending event of the last enqueue, if anyone still
    // holds it. Returns that event, for the caller to release after unlocking.
    std::shared_ptr<EventImpl> record_last_locked();
    // Under mutex_: enqueues a marker for `event` and hands it the marker's cl_event.
    void record_locked(const EventImpl& event);
    // Under mutex_: enqueues a marker after this queue's commands so far and returns it; `what`
    // names the step in an error. A timed marker (record()) carries timestamps, and on NVIDIA's
    // OpenCL ends only once every command enqueued before it on any queue of the context has;
    // an untimed one ends with this queue's commands. Throws dualrt::Error.
    enum class Marker { timed, untimed };
    cl::Event enqueue_marker_locked(Marker kind, const char* what);

    std::shared_ptr<DeviceImpl> device_;
    // Whether every command is enqueued with its own cl_event (DUALRT_SYNC, for debugging).
    const bool own_events_;
    // False for a queue made without timing (QueueOptions::timing) and for a wrapped queue
    // without profiling; only the first makes record() untimed (`untimed_`): the second's
    // timed events explain, when timed, that the application's queue keeps no timestamps.
    const bool profiling_ = true;
    const bool untimed_ = false;
    const std::vector<cl::Event> marker_waits_;  // DeviceImpl::marker_wait_list
    cl::CommandQueue queue_;

    std::mutex mutex_;  // guards everything below and the pending events' markers
    std::weak_ptr<EventImpl> last_;  // the event of the last enqueue
    std::uint64_t sequence_ = 0;     // enqueues with a pending event so far: last_'s sequence
    std::uint64_t timed_records_ = 0;  // record()s with timestamps so far: their order
    // An open timed span (begin_timed_span): its start, bound to the first command's own event,
    // and the last command's own event so far.
    bool spanning_ = false;
    std::shared_ptr<EventImpl> span_start_;
    cl::Event span_last_;
};

}  // namespace dualrt::opencl
