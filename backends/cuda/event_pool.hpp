// EventPool: a queue's free list of CUevents of one kind (untimed for enqueues' events, timed for
// record()), so that recording an event costs a cuEventRecord and not a cuEventCreate +
// cuEventDestroy as well.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <vector>

namespace dualrt::cuda {

class DeviceImpl;

// Events created with the pool's flags. An event comes back when the EventImpl that used it
// dies; it may still be pending then, and re-recording it is fine: cuEventRecord only moves the
// point that later queries and waits see, and cuStreamWaitEvent calls made earlier keep waiting
// for the record they saw. Not thread-safe: its QueueImpl guards it with the queue's mutex. Every
// method needs the owning context current on the calling thread.
class EventPool {
public:
    // Reserves room for `capacity` events, so that give_back never allocates. `flags` are
    // cuEventCreate's: CU_EVENT_DISABLE_TIMING, or CU_EVENT_DEFAULT for timed events.
    explicit EventPool(unsigned flags);
    ~EventPool();  // expects release_all() to have run (it needs a current context)
    EventPool(const EventPool&) = delete;
    EventPool& operator=(const EventPool&) = delete;

    // A free event, or a new one. Throws dualrt::Error naming `device` when creation fails.
    CUevent take(const DeviceImpl& device);
    // Keeps `event` for reuse; false when the pool is full: the caller destroys the event.
    bool give_back(CUevent event) noexcept;
    // Destroys every free event. Never throws; logs failures.
    void release_all() noexcept;

private:
    // Enough for the events a program keeps at once in the usual patterns (one per pipeline
    // stage and chunk in flight); more are created and destroyed as before.
    static constexpr std::size_t capacity = 64;

    unsigned flags_;
    std::vector<CUevent> free_;
};

}  // namespace dualrt::cuda
