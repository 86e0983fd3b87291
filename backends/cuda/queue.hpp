// QueueImpl: a CUstream, for copies, fills and kernel launches.
#pragma once

#include "backend/backend.hpp"
#include "event_pool.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dualrt::cuda {

class DeviceImpl;
class EventImpl;

// Owns one stream created with CU_STREAM_NON_BLOCKING, so it never synchronises with the legacy
// default stream that other code in the process may use. Every enqueue returns a *pending*
// EventImpl (see event.hpp): no CUevent is recorded unless the caller keeps the event, so a loop
// of launches whose events are dropped costs the driver's launch and a little bookkeeping. With
// Sync::blocking the call records the event at once and returns after the work completed.
// (DUALRT_SYNC is handled by the core for every backend. Unlike the OpenCL twin, this queue needs
// no special case for it: a CUDA fault is sticky, so waiting on an event recorded after the faulty
// command reports it just as the command's own event would.)
//
// Thread-safe: one mutex orders each enqueue with the recording of the previous enqueue's event
// (which must land between the two commands); it is held for the driver call itself and a few
// pointer updates, never while waiting. Create it with std::make_shared: its events hold it.
class QueueImpl final : public backend::QueueImpl,
                        public std::enable_shared_from_this<QueueImpl> {
public:
    // Creates the stream (and retains the device's primary context on first use). Without
    // `timed`, record() is mark(): no event with timing is ever created on it.
    QueueImpl(std::shared_ptr<DeviceImpl> device, bool timed);
    // The application's `stream` of the device's context (checked by the caller, wrap.cpp):
    // destroyed with this object when adopted, never when borrowed. Its flags stay as they are
    // (a blocking stream keeps synchronising with the legacy default stream).
    QueueImpl(std::shared_ptr<DeviceImpl> device, CUstream stream, Ownership ownership);
    // Runs when the public Queue and every event of this queue are gone: destroys the pooled
    // events and the stream unless borrowed (cuStreamDestroy returns at once; work still in the
    // stream completes). Never throws.
    ~QueueImpl() override;
    QueueImpl(const QueueImpl&) = delete;
    QueueImpl& operator=(const QueueImpl&) = delete;

    const backend::DeviceImpl& device() const override;
    // From pageable memory the driver returns once it has staged the source, from pinned memory
    // at once; to pageable memory it returns when the copy is done.
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
    backend::EventPtr copy_peer(backend::BufferImpl& dst, std::size_t dst_offset,
                                backend::BufferImpl& src, std::size_t src_offset,
                                std::size_t bytes) override;
    backend::EventPtr record() override;  // a timed cuEventRecord, of a pooled timed CUevent
    // The last enqueue's event (recorded from the pool when someone waits for it), or a pending
    // one at the same point: no timing, no cuEventCreate.
    backend::EventPtr mark() override;
    void wait_for(backend::EventImpl& event) override;  // cuStreamWaitEvent
    // cuStreamSynchronize: blocks. Records the last enqueue's pending event first, so that the
    // event reads complete afterwards.
    void finish() override;
    // CUstream, owned by this object unless borrowed. Records the pending event of the last
    // enqueue first, so that work the caller adds to the stream natively does not delay that
    // event.
    NativeHandle native_handle() const override;

    // --- for recordings (recording.hpp) ---

    // cuGraphLaunch of `graph` on the stream, in this queue's order like any enqueue; its event.
    backend::EventPtr launch_graph(CUgraphExec graph);

    // --- for EventImpl ---

    const std::shared_ptr<DeviceImpl>& cuda_device() const { return device_; }
    // Records `event` at the current end of the stream unless it is recorded already.
    // Throws dualrt::Error.
    void record_pending(const EventImpl& event);
    // Takes back the pooled CUevent of an EventImpl that is dying, into the pool of its kind.
    // Never throws.
    void recycle(CUevent event, bool timed) noexcept;

private:
    // "queue of CUDA device 0 'NAME'" plus `what`, for error contexts (built only on failure).
    std::string describe(const std::string& what) const;
    // Runs `command` (which enqueues one piece of work on stream_ and throws on failure) and
    // returns its pending event; with Sync::blocking, records the event and waits for it.
    // The caller has made the context current.
    template <typename Command>
    backend::EventPtr enqueue(Sync sync, Command&& command);
    // Under mutex_: records the pending event of the last enqueue, if anyone still holds it, at
    // the current end of the stream. Returns that event, for the caller to release after
    // unlocking (its destructor takes mutex_).
    std::shared_ptr<EventImpl> record_last_locked();
    // Under mutex_: records `event` on the stream with a pooled CUevent.
    void record_locked(const EventImpl& event);

    std::shared_ptr<DeviceImpl> device_;
    CUstream stream_ = nullptr;
    bool owns_stream_ = true;  // false for a borrowed stream (wrap_queue): never destroyed here
    const bool timed_ = true;  // false: made without timing (QueueOptions::timing)

    std::mutex mutex_;  // guards everything below and the pending events' recording
    std::weak_ptr<EventImpl> last_;  // the event of the last enqueue
    std::uint64_t sequence_ = 0;     // enqueues so far; last_'s sequence while it is pending
    EventPool pool_{CU_EVENT_DISABLE_TIMING};  // for enqueues' events
    // For record(): a timed event created on the spot would cost a cuEventCreate inside the span
    // it times whenever the stream is idle, as it is after a blocking copy.
    EventPool timed_pool_{CU_EVENT_DEFAULT};
};

}  // namespace dualrt::cuda
