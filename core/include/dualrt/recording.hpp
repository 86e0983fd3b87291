/// @file
/// Recording: commands recorded once on a queue and replayed as one unit, any number of times.
#pragma once

#include <dualrt/types.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace dualrt {

class Queue;
class Recording;
namespace detail {
struct RecordingState;
std::uint64_t digest_of(const Recording& recording) noexcept;
bool writes_elsewhere(const Recording& recording) noexcept;
}

/// Work that repeats the same commands (a solver's iteration, a time step, a frame) pays the
/// host's enqueue cost for every command every time; a Recording pays it once. Between
/// Queue::begin_recording and Queue::end_recording, the copies, fills and launches enqueued on
/// the queue are recorded instead of run; Queue::replay then enqueues all of them as one unit,
/// after the queue's earlier work, and returns the Event of their end.
///
/// @code{.cpp}
/// queue.begin_recording();
/// for (int step = 0; step < 100; ++step) {
///     queue.launch(stencil, {n}, {}, a, b, n);
///     queue.launch(stencil, {n}, {}, b, a, n);
/// }
/// dualrt::Recording steps = queue.end_recording();
/// for (int i = 0; i < 10; ++i) queue.replay(steps);  // 200 launches each, one enqueue
/// @endcode
///
/// How a device records is DeviceInfo::recording: CUDA graphs; OpenCL command buffers where the
/// device has them; elsewhere on OpenCL dualrt's own list of prepared commands, whose replay
/// makes one driver call per command and nothing else.
///
/// Several queues of one device record into one recording with Queue::begin_recording(origin);
/// waits between them are recorded as they are enqueued, and a replay keeps them.
///
/// What can be recorded: copies between device buffers of the queue's device, copies between
/// them and pinned host memory (HostBuffer, registered memory, or a plain pointer into either),
/// fills and kernel launches. Everything that needs the host or another queue while the work
/// runs is refused with Errc::invalid_argument naming it when it is enqueued: copies from or to
/// pageable memory (staged through the host), Sync::blocking, copies between devices, record(),
/// mark(), finish(), and wait() on an Event from outside the recording. Scalar arguments are
/// taken when recorded; buffers are used in place, so a replay reads and writes their contents
/// at the time it runs. A Recording keeps every buffer and kernel it uses alive. Record from one
/// thread at a time per recording.
class Recording {
public:
    Recording() = default;  ///< empty: valid() is false
    bool valid() const noexcept { return state_ != nullptr; }  ///< whether it holds commands
    /// How it replays: RecordingPath::graph, command_buffer or command_list.
    RecordingPath path() const;
    /// The commands it holds.
    std::size_t commands() const;
    /// The queues it was recorded on (Queue::begin_recording(origin) adds one).
    std::size_t queues() const;
    /// Whether the last re-recording into this object (Queue::end_recording(Recording&))
    /// updated the backend's executable work in place (CUDA graphs whose commands kept their
    /// kinds and order) rather than building it anew.
    bool updated_in_place() const;

private:
    friend class Queue;  // records, re-records and replays it
    // A Pipeline compares a run's commands with the recording's (queue_recording.hpp).
    friend std::uint64_t detail::digest_of(const Recording& recording) noexcept;
    friend bool detail::writes_elsewhere(const Recording& recording) noexcept;
    explicit Recording(std::shared_ptr<detail::RecordingState> state) : state_(std::move(state)) {}
    std::shared_ptr<detail::RecordingState> state_;
};

}  // namespace dualrt
