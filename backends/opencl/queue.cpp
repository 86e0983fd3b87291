// QueueImpl: copies, fills, kernel launches, markers and barriers on one cl::CommandQueue.
#include "queue.hpp"

#include <dualrt/runtime.hpp>

#include "buffer.hpp"
#include "check.hpp"
#include "device.hpp"
#include "event.hpp"
#include "fill.hpp"
#include "kernel_arguments.hpp"
#include "pocl_launch_guard.hpp"
#include "program.hpp"
#include "support/environment.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <array>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <utility>

namespace dualrt::opencl {
namespace {

// The core checks that every object it hands a queue belongs to the queue's device, hence to
// this backend, so these downcasts are safe.
BufferImpl& ours(backend::BufferImpl& buffer) { return static_cast<BufferImpl&>(buffer); }
KernelImpl& ours(backend::KernelImpl& kernel) { return static_cast<KernelImpl&>(kernel); }
EventImpl& ours(backend::EventImpl& event) { return static_cast<EventImpl&>(event); }

cl::NDRange nd_range(int dims, const std::size_t (&extent)[3]) {
    switch (dims) {
    case 1:
        return cl::NDRange(extent[0]);
    case 2:
        return cl::NDRange(extent[0], extent[1]);
    default:
        return cl::NDRange(extent[0], extent[1], extent[2]);
    }
}

std::string extent_text(int dims, const std::size_t (&extent)[3]) {
    std::string text = std::to_string(extent[0]);
    for (int axis = 1; axis < dims; ++axis) text += "x" + std::to_string(extent[axis]);
    return text;
}

// The sub-buffers that pass a launch's buffer views (BufferImpl::kernel_argument), kept until the
// launch is enqueued and its arguments cleared: each is the only reference to its sub-buffer, and
// clSetKernelArg does not retain it (clEnqueueNDRangeKernel does, for as long as the kernel
// runs). Up to 8 views per launch cost no allocation here.
class LaunchSubBuffers {
public:
    LaunchSubBuffers() = default;
    LaunchSubBuffers(const LaunchSubBuffers&) = delete;
    LaunchSubBuffers& operator=(const LaunchSubBuffers&) = delete;
    ~LaunchSubBuffers() {
        for (std::size_t i = 0; i < count_; ++i) slot(i).~Buffer();
    }
    // A slot that lives until this object dies, valid until the next call. Slots are made as
    // they are asked for: every launch makes this object, and most pass no view.
    cl::Buffer& next() {
        if (count_ == inline_count) return more_.emplace_back();
        ::new (static_cast<void*>(inline_ + count_ * sizeof(cl::Buffer))) cl::Buffer();
        return slot(count_++);
    }

private:
    cl::Buffer& slot(std::size_t i) {
        return *std::launder(reinterpret_cast<cl::Buffer*>(inline_ + i * sizeof(cl::Buffer)));
    }
    static constexpr std::size_t inline_count = 8;
    alignas(cl::Buffer) unsigned char inline_[inline_count * sizeof(cl::Buffer)];
    std::size_t count_ = 0;
    std::vector<cl::Buffer> more_;
};

// Clears a launch's memory-object arguments once it is enqueued (or failed to be), so that the
// shared cl_kernel never names a memory object after the launch: a view's sub-buffer is released
// right after it (LaunchSubBuffers), and a whole buffer may be destroyed as soon as the launch's
// event goes. The next launch of the kernel would then replace an argument that names a freed
// object, which the specification does not forbid but which a driver may touch: one sub-buffer
// per launch without this clearing crashes NVIDIA's OpenCL (580) in about a third of the stress
// suite's runs (docs/RELIABILITY.md). It costs one clSetKernelArg per buffer argument, 6-7 ns each
// there. Lives under the kernel's launch mutex.
class ClearBufferArguments {
public:
    ClearBufferArguments(KernelState& state, backend::KernelArgs args)
        : state_(state), args_(args) {}
    ClearBufferArguments(const ClearBufferArguments&) = delete;
    ClearBufferArguments& operator=(const ClearBufferArguments&) = delete;
    ~ClearBufferArguments() {
        const cl_mem none = nullptr;  // OpenCL: a buffer argument may be NULL
        for (std::size_t i = 0; i < args_.size(); ++i)
            if (args_[i].kind == backend::ParamInfo::Kind::buffer)
                CL_CHECK_NOTHROW(
                    state_.kernel.setArg(static_cast<cl_uint>(i), sizeof none, &none),
                    "clearing buffer argument " + std::to_string(i) + " of kernel '" +
                        state_.name + "' after its launch");
    }

private:
    KernelState& state_;
    backend::KernelArgs args_;
};

}  // namespace

QueueImpl::QueueImpl(std::shared_ptr<DeviceImpl> device, bool timed)
    : device_(std::move(device)), own_events_(detail::sync_after_every_enqueue()),
      profiling_(timed), untimed_(!timed), marker_waits_(device_->marker_wait_list()) {
    queue_ = CL_CHECK(cl::CommandQueue(device_->context(), device_->cl_device(),
                                       timed ? cl::QueueProperties::Profiling
                                             : cl::QueueProperties::None),
                      std::string(timed ? "creating a queue with profiling on "
                                        : "creating a queue without profiling on ") +
                          device_->describe());
}

QueueImpl::QueueImpl(std::shared_ptr<DeviceImpl> device, cl::CommandQueue queue, bool profiling)
    : device_(std::move(device)), own_events_(detail::sync_after_every_enqueue()),
      profiling_(profiling), marker_waits_(device_->marker_wait_list()),
      queue_(std::move(queue)) {}

const backend::DeviceImpl& QueueImpl::device() const { return *device_; }

std::string QueueImpl::describe(const std::string& what) const {
    return "queue of " + device_->describe() + ": " + what;
}

cl::Event QueueImpl::enqueue_marker_locked(Marker kind, const char* what) {
    cl::Event marker;
    // The marker completes when every command before it on this (in-order) queue has completed.
    // An untimed one lists one finished event, which keeps NVIDIA's driver from also waiting for
    // the other queues' earlier commands (DeviceImpl::marker_wait_list). A timed one cannot: with
    // a wait list NVIDIA's driver gives the marker timestamps of another clock, so it keeps the
    // empty list and its wider wait.
    CL_CHECK(queue_.enqueueMarkerWithWaitList(kind == Marker::timed ? nullptr : &marker_waits_,
                                              &marker),
             describe(what));
    return marker;
}

void QueueImpl::record_locked(const EventImpl& event) {
    event.set_recorded(enqueue_marker_locked(Marker::untimed, "enqueueing the marker of an event"));
}

std::shared_ptr<EventImpl> QueueImpl::record_last_locked() {
    std::shared_ptr<EventImpl> last = last_.lock();
    // Nobody holds the event (the usual case), or it has its cl_event already: nothing to do.
    if (last && last->pending()) {
        assert(last->sequence() == sequence_ && "a pending event is always its queue's last");
        record_locked(*last);
    }
    return last;
}

void QueueImpl::record_pending(const EventImpl& event) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (event.recorded()) return;  // the next enqueue made its marker meanwhile
    // A pending event that anyone holds is the queue's last command: every enqueue makes the
    // previous one's marker first. A marker now therefore completes exactly with its command.
    // (A complete event is not the last command; a marker now completes later, which is
    // harmless for an event whose command is known to be done.)
    assert((!event.pending() || event.sequence() == sequence_) &&
           "a pending event is always its queue's last");
    record_locked(event);
}

bool QueueImpl::finish_if_last(const EventImpl& event) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!event.pending() || event.sequence() != sequence_) return false;
    }
    // Outside the mutex: other threads may enqueue meanwhile, and clFinish then waits for their
    // commands too. Later than needed, never too early.
    CL_CHECK_SYNC(queue_.finish(), describe("waiting for an event (its queue's last command)"));
    return true;
}

template <typename Command>
backend::EventPtr QueueImpl::enqueue(bool wait, Command&& command) {
    // Allocated before the lock, to keep the lock short; released after it on failure.
    auto event = std::make_shared<EventImpl>(shared_from_this(), EventImpl::Start::pending);
    std::shared_ptr<EventImpl> previous;  // released after the lock, like `event`
    {
        std::lock_guard<std::mutex> lock(mutex_);
        previous = record_last_locked();
        if (spanning_) {
            // In a timed span the command's own event times it, and is the queue's last point.
            cl::Event native;
            command(&native);
            if (!span_start_->recorded()) span_start_->set_recorded(native);
            span_last_ = native;
            event->set_recorded(std::move(native));
            event->set_sequence(++sequence_);
            last_ = event;
        } else if (wait || own_events_) {
            // The command's own event: a failure is then reported with the command's status.
            cl::Event native;
            command(&native);
            event->set_recorded(std::move(native));
        } else {
            command(nullptr);
            event->set_sequence(++sequence_);
            last_ = event;
        }
    }
    if (wait) event->wait();  // names the failed command's status, unlike clFinish
    return event;
}

template <typename Command>
backend::EventPtr QueueImpl::enqueue_blocking_transfer(Command&& command) {
    auto event = std::make_shared<EventImpl>(shared_from_this(), EventImpl::Start::complete);
    {
        std::shared_ptr<EventImpl> previous;  // released after the lock
        std::lock_guard<std::mutex> lock(mutex_);
        previous = record_last_locked();
        last_.reset();
    }
    // Outside the mutex: a blocking call may take long, and other threads may enqueue meanwhile.
    // Should one of their commands land before this one, its pending event's marker comes after
    // this command: later than needed, never too early.
    command();
    return event;
}

backend::EventPtr QueueImpl::enqueue_replay(
    const std::function<void(const cl::CommandQueue&, cl::Event*)>& commands) {
    return enqueue(false, [&](cl::Event* event) { commands(queue_, event); });
}

backend::EventPtr QueueImpl::copy_to_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                            const void* src, std::size_t bytes, Sync sync) {
    const cl::Buffer& buffer = ours(dst).cl_buffer();
    const auto write = [&](cl_bool blocking, cl::Event* event) {
        CL_CHECK(queue_.enqueueWriteBuffer(buffer, blocking, dst_offset, bytes, src, nullptr,
                                           event),
                 describe("copying " + detail::format_bytes(bytes) +
                          " from the host to a device buffer at offset " +
                          std::to_string(dst_offset)));
    };
    if (sync == Sync::blocking) return enqueue_blocking_transfer([&] { write(CL_TRUE, nullptr); });
    return enqueue(false, [&](cl::Event* event) { write(CL_FALSE, event); });
}

backend::EventPtr QueueImpl::copy_to_host(void* dst, backend::BufferImpl& src,
                                          std::size_t src_offset, std::size_t bytes, Sync sync) {
    const cl::Buffer& buffer = ours(src).cl_buffer();
    const auto read = [&](cl_bool blocking, cl::Event* event) {
        CL_CHECK(queue_.enqueueReadBuffer(buffer, blocking, src_offset, bytes, dst, nullptr,
                                          event),
                 describe("copying " + detail::format_bytes(bytes) +
                          " from a device buffer at offset " + std::to_string(src_offset) +
                          " to the host"));
    };
    if (sync == Sync::blocking) return enqueue_blocking_transfer([&] { read(CL_TRUE, nullptr); });
    return enqueue(false, [&](cl::Event* event) { read(CL_FALSE, event); });
}

backend::EventPtr QueueImpl::copy_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                         backend::BufferImpl& src, std::size_t src_offset,
                                         std::size_t bytes, Sync sync) {
    const cl::Buffer& from = ours(src).cl_buffer();
    const cl::Buffer& to = ours(dst).cl_buffer();
    return enqueue(sync == Sync::blocking, [&](cl::Event* event) {
        CL_CHECK(queue_.enqueueCopyBuffer(from, to, src_offset, dst_offset, bytes, nullptr, event),
                 describe("copying " + detail::format_bytes(bytes) +
                          " between device buffers, from offset " + std::to_string(src_offset) +
                          " to offset " + std::to_string(dst_offset)));
    });
}

backend::EventPtr QueueImpl::fill(backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
                                  const void* pattern, std::size_t pattern_size, Sync sync) {
    const cl::Buffer& buffer = ours(dst).cl_buffer();
    return enqueue(sync == Sync::blocking, [&](cl::Event* event) {
        CL_CHECK(enqueue_fill(queue_, buffer, pattern, pattern_size, offset, bytes, event),
                 describe("filling " + detail::format_bytes(bytes) + " at offset " +
                          std::to_string(offset) + " with a " + std::to_string(pattern_size) +
                          "-byte pattern"));
    });
}

backend::EventPtr QueueImpl::launch(backend::KernelImpl& kernel,
                                    const backend::LaunchGeometry& geometry,
                                    backend::KernelArgs args) {
    KernelState& state = ours(kernel).state();
    // Called only when a call failed: the success path builds no strings.
    const auto arg_context = [&](std::size_t index) {
        const auto& params = state.params;
        const std::string param = index < params.size() && !params[index].name.empty()
                                      ? " ('" + params[index].name + "')"
                                      : "";
        return describe("setting argument " + std::to_string(index) + param + " of kernel '" +
                        state.name + "'");
    };
    const cl::NDRange global = nd_range(geometry.dims, geometry.global);
    const cl::NDRange local = nd_range(geometry.dims, geometry.local);

    LaunchSubBuffers sub_buffers;  // declared before the lock: released after it
    // The arguments of a launch are those set when it is enqueued, so the kernel's mutex is held
    // from the first clSetKernelArg to clEnqueueNDRangeKernel (the queue's mutex is taken inside
    // it, never the other way round).
    std::lock_guard<std::mutex> lock(state.launch_mutex);
    const ClearBufferArguments clear(state, args);  // after enqueueing, still under the lock
    set_kernel_arguments(
        state.kernel, args, [&]() -> cl::Buffer& { return sub_buffers.next(); }, arg_context);
    const auto enqueue_launch = [&](cl::Event* event) {
        CL_CHECK(queue_.enqueueNDRangeKernel(state.kernel, cl::NullRange, global, local, nullptr,
                                             event),
                 describe("launching kernel '" + state.name + "' over " +
                          extent_text(geometry.dims, geometry.global) +
                          " work-items in groups of " +
                          extent_text(geometry.dims, geometry.local)));
    };
    return enqueue(false, [&](cl::Event* event) {
        if (!device_->is_pocl()) {
            enqueue_launch(event);
            return;
        }
        cl::Event own;  // the guard needs every launch's event
        const std::array<std::size_t, 3> local_size{geometry.local[0], geometry.local[1],
                                                    geometry.local[2]};
        const std::array<std::size_t, 3> grid{geometry.global[0], geometry.global[1],
                                              geometry.global[2]};
        pocl_guarded_launch(state.name, local_size, grid, queue_, event ? *event : own,
                            enqueue_launch);
    });
}

backend::EventPtr QueueImpl::record() {
    if (untimed_) return mark();  // a queue without timing: an untimed point
    cl::Event marker;
    std::uint64_t order = 0;
    {
        std::shared_ptr<EventImpl> previous;  // released after the lock
        std::lock_guard<std::mutex> lock(mutex_);
        previous = record_last_locked();
        marker = enqueue_marker_locked(Marker::timed, "recording an event");
        order = ++timed_records_;
        // Submitted at once, so that on an idle queue the timestamp is the moment of record(),
        // not that of whatever later call happens to flush the queue (a staged copy's first
        // DMA comes only after a host memcpy, which would then fall outside the timing).
        CL_CHECK(queue_.flush(), describe("submitting a recorded event"));
    }
    auto event = std::make_shared<EventImpl>(shared_from_this(), std::move(marker), true);
    event->set_record_order(order);
    return event;
}

backend::EventPtr QueueImpl::begin_timed_span() {
    if (!profiling_) return record();
    auto start = std::make_shared<EventImpl>(shared_from_this(), EventImpl::Stamp::start);
    std::lock_guard<std::mutex> lock(mutex_);
    spanning_ = true;
    span_start_ = start;
    span_last_ = cl::Event();
    return start;
}

backend::EventPtr QueueImpl::end_timed_span() {
    if (!profiling_) return record();
    std::shared_ptr<EventImpl> start;
    cl::Event last;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        spanning_ = false;
        start.swap(span_start_);
        std::swap(last, span_last_);
    }
    if (last() != nullptr)
        return std::make_shared<EventImpl>(shared_from_this(), std::move(last), true);
    // No command in the span: both ends are a timed marker.
    auto end = record();
    if (start && !start->recorded()) start->set_recorded(ours(*end).cl_event());
    return end;
}

backend::EventPtr QueueImpl::mark() {
    // With an event per command (DUALRT_SYNC), a marker now is the only pending-free point.
    if (own_events_) {
        cl::Event marker;
        std::shared_ptr<EventImpl> previous;  // released after the lock
        std::lock_guard<std::mutex> lock(mutex_);
        previous = record_last_locked();
        marker = enqueue_marker_locked(Marker::untimed, "marking");
        return std::make_shared<EventImpl>(shared_from_this(), std::move(marker), false);
    }
    auto fresh = std::make_shared<EventImpl>(shared_from_this(), EventImpl::Start::pending);
    std::lock_guard<std::mutex> lock(mutex_);
    // The last command's event marks exactly this point (a barrier or a timed marker since then
    // adds no work of its own); held by someone, it is pending or has its marker already.
    if (std::shared_ptr<EventImpl> last = last_.lock()) return last;
    fresh->set_sequence(sequence_);
    last_ = fresh;
    return fresh;
}

void QueueImpl::wait_for(backend::EventImpl& event) {
    EventImpl& other = ours(event);
    if (other.finished()) return;  // a wait found it complete: nothing to order after
    // The marker of a pending event is made first, outside this queue's mutex: it may be this
    // queue's own event, and making it takes the mutex.
    const std::vector<cl::Event> wait_list{other.cl_event()};
    // OpenCL requires the waited-on command to be flushed when it is in another queue.
    other.flush_queue();
    std::shared_ptr<EventImpl> previous;  // released after the lock
    std::lock_guard<std::mutex> lock(mutex_);
    // The previous enqueue's event must mark the point before this barrier, not after it.
    previous = record_last_locked();
    CL_CHECK(queue_.enqueueBarrierWithWaitList(&wait_list, nullptr),
             describe("waiting for an event of another queue"));
}

void QueueImpl::finish() {
    {
        // A pending event's marker made after clFinish would still be queued when the caller,
        // told that all work is done, asks the event.
        std::shared_ptr<EventImpl> previous;  // released after the lock
        std::lock_guard<std::mutex> lock(mutex_);
        previous = record_last_locked();
        // A span left open (its timing abandoned by an error) ends here.
        spanning_ = false;
        span_start_.reset();
        span_last_ = cl::Event();
    }
    CL_CHECK_SYNC(queue_.finish(), describe("finishing"));
}

void QueueImpl::submit() { CL_CHECK(queue_.flush(), describe("submitting its commands")); }

NativeHandle QueueImpl::native_handle() const {
    // QueueImpls are never const objects; making the marker changes no observable state.
    auto& self = const_cast<QueueImpl&>(*this);
    std::shared_ptr<EventImpl> previous;  // released after the lock
    {
        std::lock_guard<std::mutex> lock(self.mutex_);
        previous = self.record_last_locked();
        // Work the caller adds natively comes after that event: mark() must not return it.
        self.last_.reset();
    }
    return reinterpret_cast<NativeHandle>(queue_());
}

}  // namespace dualrt::opencl
