/// @file
/// Event: a point in a queue.
#pragma once

#include <dualrt/types.hpp>

#include <memory>

namespace dualrt {

namespace backend {
class EventImpl;
}

/// A point in a queue. Every enqueue returns the Event of the enqueued work; Queue::record() marks
/// the current end of a queue. Copies share the same point. Thread-safe.
///
/// Every member but valid() throws Errc::invalid_argument on an empty Event.
class Event {
public:
    Event() = default;  ///< an empty event: valid() is false
    /// Wraps a backend event (internal: events come from Queue).
    explicit Event(std::shared_ptr<backend::EventImpl> impl);

    /// Whether this is an event of some queue (false when default-constructed).
    bool valid() const noexcept { return impl_ != nullptr; }
    void wait() const;          ///< blocks the calling thread until the point is reached
    /// Whether the point is reached; never blocks. On OpenCL it also submits the queue's
    /// commands if they are still held back (a queue runs nothing until it is flushed), so a
    /// poll right after an enqueue starts the work at once.
    bool is_complete() const;

    /// Device time in milliseconds from `start` to `end`, both of one device and both from
    /// Queue::record() (the events of copies, fills and launches carry no timestamp, which keeps
    /// them cheap). Waits for both.
    /// @throws Error Errc::invalid_argument when an event is empty, the two are of different
    ///         devices, or one carries no timestamp.
    static double elapsed_ms(const Event& start, const Event& end);

    NativeHandle native_handle() const;  ///< the native event (docs/guide.md, native_handle)
    friend struct detail::BackendAccess;  // the library's own code reaches the backend object

private:
    std::shared_ptr<backend::EventImpl> impl_;
};

}  // namespace dualrt
