/// @file
/// Queue: an in-order stream of copies, fills and kernel launches on one device.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/event.hpp>
#include <dualrt/host_buffer.hpp>
#include <dualrt/kernel.hpp>
#include <dualrt/recording.hpp>
#include <dualrt/types.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace dualrt {

namespace backend {
class DeviceImpl;
class EventImpl;
class QueueImpl;
}
namespace detail {
class QueueRecording;
struct RecordingState;
}
class Device;

/// How Device::create_queue makes a queue.
struct QueueOptions {
    /// Whether Queue::record() gives timed events (Event::elapsed_ms). On OpenCL a queue with
    /// timing is created with CL_QUEUE_PROFILING_ENABLE, and NVIDIA's driver then charges about
    /// 8 us for every event the queue hands out (each kept Event of a copy or launch, each
    /// record()): a queue whose events are waited on but never timed is cheaper without. Without
    /// timing, record() gives an untimed point that queues and the host can wait on, and
    /// Event::elapsed_ms refuses it.
    bool timing = true;
};

/// An in-order queue (OpenCL command queue / CUDA stream). Work runs in enqueue order; every
/// operation returns the Event of its work. With Sync::async (the default) a call returns once the
/// work is enqueued, and host memory it reads or writes must stay valid until the event completes;
/// with Sync::blocking it returns after the work is done.
///
/// Copies from and to ordinary (pageable) host memory, given as a pointer or std::vector, go
/// through the device's pinned staging pool (staging.hpp) when they are large enough (on a GPU
/// from 256 KiB, to a CUDA GPU from 64 KiB; from 1 MiB on a CPU device; StagingStats says): on
/// return the source has been read (host to device) or the destination written (device to host)
/// even with Sync::async, since each chunk passes through the host. Copies from and to a
/// HostBuffer (or a view of one) are DMA from pinned memory, fully asynchronous; so are copies
/// given a plain pointer that lies inside a live HostBuffer's memory (alloc_host or
/// register_host, on this device; on CUDA, on any CUDA device, since CUDA pins for every
/// context), which are never staged.
///
/// Thread-safety: any number of threads may enqueue on one queue; the order between threads is the
/// order the calls happen in.
///
/// Every member but valid() throws Errc::invalid_argument on an empty Queue, and on a
/// buffer of another device.
class Queue {
public:
    Queue() = default;  ///< empty: valid() is false
    /// Wraps a backend queue of `device` (internal: queues come from Device::create_queue).
    Queue(std::shared_ptr<backend::QueueImpl> impl, std::shared_ptr<backend::DeviceImpl> device);

    /// Whether this is a queue of some device (false when default-constructed).
    bool valid() const noexcept { return impl_ != nullptr; }
    Device device() const;  ///< the device this queue runs on

    /// @name Copies
    /// @{

    /// host -> device. The element counts must match exactly (use dst.view(...) for part of a
    /// buffer); otherwise Errc::invalid_argument.
    template <typename T>
    Event copy(const Buffer<T>& dst, const T* src, std::size_t count, Sync sync = Sync::async) {
        return write_bytes(dst, src, count * sizeof(T), sizeof(T), sync, HostMemory::pageable);
    }
    /// host -> device, from a std::vector of exactly dst.size() elements.
    template <typename T>
    Event copy(const Buffer<T>& dst, const std::vector<T>& src, Sync sync = Sync::async) {
        return write_bytes(dst, src.data(), src.size() * sizeof(T), sizeof(T), sync,
                           HostMemory::pageable);
    }
    /// host -> device, from pinned memory by DMA (fully asynchronous).
    template <typename T>
    Event copy(const Buffer<T>& dst, const HostBuffer<T>& src, Sync sync = Sync::async) {
        return write_bytes(dst, src.data(), src.bytes(), sizeof(T), sync, HostMemory::pinned);
    }

    /// device -> host, into `count` elements at `dst` (count must equal src.size()).
    template <typename T>
    Event copy(T* dst, std::size_t count, const Buffer<T>& src, Sync sync = Sync::async) {
        return read_bytes(dst, count * sizeof(T), src, sizeof(T), sync, HostMemory::pageable);
    }
    /// device -> host, into a std::vector of exactly src.size() elements.
    template <typename T>
    Event copy(std::vector<T>& dst, const Buffer<T>& src, Sync sync = Sync::async) {
        return read_bytes(dst.data(), dst.size() * sizeof(T), src, sizeof(T), sync,
                          HostMemory::pageable);
    }
    /// device -> host, into pinned memory by DMA (fully asynchronous).
    template <typename T>
    Event copy(const HostBuffer<T>& dst, const Buffer<T>& src, Sync sync = Sync::async) {
        return read_bytes(dst.data(), dst.bytes(), src, sizeof(T), sync, HostMemory::pinned);
    }

    /// device -> device: within one device (the ranges must not overlap), or between two devices,
    /// this queue being on either of them. Between devices of one backend that can copy directly
    /// (CUDA peer access, DeviceInfo and dualrt-info say which pairs) the copy is asynchronous
    /// like any other; otherwise it is staged through pinned host buffers of the staging pool in
    /// pieces (a download overlapping the previous piece's upload), and the call returns once
    /// every piece has left the source device (it blocks the host meanwhile). Either way it runs
    /// after the work enqueued on this queue before it, and work enqueued here after it sees the
    /// copied data. Throws Errc::invalid_argument when neither buffer is of this queue's device,
    /// naming all three devices.
    template <typename T>
    Event copy(const Buffer<T>& dst, const Buffer<T>& src, Sync sync = Sync::async) {
        return copy_bytes(dst, src, sizeof(T), sync);
    }

    /// @}

    /// Sets every element of dst to value (copied at the call, so it may be a temporary).
    /// sizeof(T) must be a power of two up to 128.
    template <typename T>
    Event fill(const Buffer<T>& dst, const T& value, Sync sync = Sync::async) {
        return fill_bytes(dst, &value, sizeof(T), sync);
    }

    /// Runs `kernel` over `global` work-items in work-groups of `local` (a default Range{} lets
    /// the library choose). global is rounded up to a multiple of local, so kernels bounds-check.
    /// Arguments: `Buffer<T>` views, dualrt::local_bytes(n), or scalars of the exact size the
    /// kernel declares. Checked before launch; a mismatch is Errc::invalid_argument naming the
    /// argument.
    /// Allocates nothing per argument: the list lives on the stack and borrows `args`.
    template <typename... Args>
    Event launch(const Kernel& kernel, Range global, Range local, const Args&... args) {
        const std::array<KernelArgument, sizeof...(Args)> list{detail::make_argument(args)...};
        return launch_checked(kernel, global, local, list.data(), list.size());
    }

    /// An Event at the current end of this queue, timed (see Event::elapsed_ms) unless the queue
    /// was made without timing (QueueOptions::timing). On NVIDIA's OpenCL a timed event ends only
    /// once the work enqueued before it on every queue of the device has ended (the driver's
    /// timestamped markers wait that long): to order work, use mark().
    Event record();
    /// An untimed Event at the current end of this queue, to wait on (Queue::wait, Event::wait):
    /// it ends as soon as this queue's work so far has ended, on every backend, and costs less
    /// than record() (CUDA: a pooled event; OpenCL: no flush, and no marker unless waited on).
    /// Event::elapsed_ms refuses it.
    Event mark();
    /// Later work on this queue waits for `event`. For an event of this device, or of another CUDA
    /// device on the CUDA backend, the host does not wait. For an event of a device this queue
    /// cannot wait for on the device (another OpenCL context, or the other backend), the host
    /// waits for the event here (blocks), which orders later work just as well but costs the
    /// host that wait.
    void wait(const Event& event);
    void finish();                  ///< blocks until everything enqueued so far has completed

    /// @name Recording (recording.hpp)
    /// @{

    /// From now until end_recording(), copies, fills and launches enqueued on this queue are
    /// recorded instead of run; each returns an Event that exists only in the recording: the
    /// recording's queues (begin_recording(origin)) may wait for it, but waiting for it on the
    /// host, or timing it, is Errc::invalid_argument. Throws Errc::invalid_argument when the
    /// queue is recording already, Errc::unavailable when the device cannot record
    /// (DeviceInfo::recording is RecordingPath::none).
    void begin_recording();
    /// Records this queue's copies, fills and launches into the recording under way on `origin`
    /// (a queue of the same device that called begin_recording()), as another queue of it: its
    /// commands run after those recorded on `origin` so far, beside them otherwise, and
    /// `wait(event)` on an Event of a command of the recording (of any of its queues) orders
    /// them as it would unrecorded. The recording ends, for every queue of it, with
    /// origin.end_recording(). Throws Errc::invalid_argument when this queue is recording
    /// already, or `origin` is not a queue of this device that began a recording.
    void begin_recording(const Queue& origin);
    /// Whether the queue is recording.
    bool recording() const;
    /// Ends the recording (on every queue recording into it) and returns it, ready to replay on
    /// any queue of this device. Throws Errc::invalid_argument when the queue is not recording,
    /// joined another queue's recording (end it there), or nothing was recorded.
    Recording end_recording();
    /// Ends the recording into `into`, a Recording of this device made before: its replays from
    /// now on run the new commands. Where the backend can, the executable work is updated in
    /// place, which costs less than building it anew (CUDA graphs whose commands keep their kinds
    /// and order: new scalar arguments, other buffers of the same sizes); otherwise it is built
    /// anew. Recording::updated_in_place() says which happened.
    void end_recording(Recording& into);
    /// Enqueues the recorded commands as one unit, after the work enqueued on this queue before;
    /// the returned Event ends when they have, on every queue they were recorded on (the
    /// replay keeps their order and runs what was recorded on different queues side by side
    /// where the device can). `recording` must be of this queue's device.
    Event replay(const Recording& recording);
    /// @}

    /// The native queue or stream (docs/guide.md, native_handle). Work enqueued on it natively runs
    /// after the work enqueued here so far; the Events returned so far do not include it.
    NativeHandle native_handle() const;
    friend struct detail::BackendAccess;  // the library's own code reaches the backend object

private:
    enum class HostMemory { pageable, pinned };  // pageable copies are staged
    // elem_size only makes error messages speak in elements.
    Event write_bytes(const BufferView& dst, const void* src, std::size_t bytes,
                      std::size_t elem_size, Sync sync, HostMemory host);
    Event read_bytes(void* dst, std::size_t bytes, const BufferView& src, std::size_t elem_size,
                     Sync sync, HostMemory host);
    Event copy_bytes(const BufferView& dst, const BufferView& src, std::size_t elem_size,
                     Sync sync);
    Event fill_bytes(const BufferView& dst, const void* pattern, std::size_t pattern_size,
                     Sync sync);
    Event launch_checked(const Kernel& kernel, Range global, Range local,
                         const KernelArgument* args, std::size_t count);
    void require_valid(const char* operation) const;
    void require_same_device(const char* operation, const BufferView& buffer,
                             const char* role) const;
    // `what` (and a kernel's `name`) describe the command to a Pipeline's enqueue watch.
    Event after_enqueue(std::shared_ptr<backend::EventImpl> event, Sync sync,
                        const char* what = "a copy or fill", const std::string* name = nullptr);
    // The recording under way on this queue, for a command of `operation` (null when none);
    // refuses Sync::blocking, which a recorded command cannot honour.
    detail::QueueRecording* recording_for(const char* operation, Sync sync) const;
    Event recorded() const;  // the Event a recorded command returns
    void refuse_while_recording(const char* operation) const;  // for what cannot be recorded
    // end_recording's work: the recording as a state, updating `previous` where it can.
    std::shared_ptr<detail::RecordingState> finish_recording(
        const std::shared_ptr<detail::RecordingState>& previous);

    std::shared_ptr<backend::QueueImpl> impl_;
    std::shared_ptr<backend::DeviceImpl> device_;
};

}  // namespace dualrt
