// QueueImpl: copies, fills, kernel launches, events and waits on one CUstream.
#include "queue.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "event.hpp"
#include "fill.hpp"
#include "launch.hpp"
#include "program.hpp"
#include "support/raise.hpp"

#include <cassert>
#include <string>
#include <utility>

namespace dualrt::cuda {
namespace {

// The core checks that every object it hands a queue belongs to the queue's device, hence to
// this backend, so these downcasts are safe.
BufferImpl& ours(backend::BufferImpl& buffer) { return static_cast<BufferImpl&>(buffer); }
KernelImpl& ours(backend::KernelImpl& kernel) { return static_cast<KernelImpl&>(kernel); }
EventImpl& ours(backend::EventImpl& event) { return static_cast<EventImpl&>(event); }

}  // namespace

QueueImpl::QueueImpl(std::shared_ptr<DeviceImpl> device, bool timed)
    : device_(std::move(device)), timed_(timed) {
    ScopedContext current(device_->context());
    CU_CHECK(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
             "creating a stream on " + device_->describe());
}

QueueImpl::QueueImpl(std::shared_ptr<DeviceImpl> device, CUstream stream, Ownership ownership)
    : device_(std::move(device)), stream_(stream), owns_stream_(ownership == Ownership::adopt) {}

QueueImpl::~QueueImpl() {
    ScopedContext current(device_->context(), ScopedContext::no_throw);
    pool_.release_all();
    timed_pool_.release_all();
    if (!owns_stream_) return;  // borrowed: the application destroys it
    CU_CHECK_NOTHROW(cuStreamDestroy(stream_), "destroying a stream of " + device_->describe());
}

const backend::DeviceImpl& QueueImpl::device() const { return *device_; }

std::string QueueImpl::describe(const std::string& what) const {
    return "queue of " + device_->describe() + ": " + what;
}

void QueueImpl::record_locked(const EventImpl& event) {
    const CUevent native = pool_.take(*device_);
    const CUresult status = cuEventRecord(native, stream_);
    if (status != CUDA_SUCCESS) {
        if (!pool_.give_back(native)) {
            CU_CHECK_NOTHROW(cuEventDestroy(native),
                             "destroying an event of " + device_->describe());
        }
        CU_CHECK(status, describe("recording the event of an enqueue"));
    }
    event.set_recorded(native);
}

std::shared_ptr<EventImpl> QueueImpl::record_last_locked() {
    std::shared_ptr<EventImpl> last = last_.lock();
    // Nobody holds the event (the usual case), or it was recorded already: nothing to do.
    if (last && !last->recorded()) {
        assert(last->sequence() == sequence_ && "a pending event is always its queue's last");
        record_locked(*last);
    }
    return last;
}

void QueueImpl::record_pending(const EventImpl& event) {
    ScopedContext current(device_->context());
    std::lock_guard<std::mutex> lock(mutex_);
    if (event.recorded()) return;  // the next enqueue recorded it meanwhile
    // A pending event that anyone holds is the queue's last command: every enqueue records the
    // previous one's event first. Recording now therefore marks exactly its point.
    assert(event.sequence() == sequence_ && "a pending event is always its queue's last");
    record_locked(event);
}

void QueueImpl::recycle(CUevent event, bool timed) noexcept {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if ((timed ? timed_pool_ : pool_).give_back(event)) return;
    }
    ScopedContext current(device_->context(), ScopedContext::no_throw);
    CU_CHECK_NOTHROW(cuEventDestroy(event), "destroying an event of " + device_->describe());
}

template <typename Command>
backend::EventPtr QueueImpl::enqueue(Sync sync, Command&& command) {
    // Allocated before the lock, to keep the lock short; released after it on failure.
    auto event = std::make_shared<EventImpl>(shared_from_this());
    std::shared_ptr<EventImpl> previous;  // released after the lock: its destructor takes it
    {
        std::lock_guard<std::mutex> lock(mutex_);
        previous = record_last_locked();
        command();
        event->set_sequence(++sequence_);
        last_ = event;
        // A blocking call waits for its own event, not for the whole stream (which other threads
        // may be adding to); recorded here, waited for after unlocking.
        if (sync == Sync::blocking) record_locked(*event);
    }
    if (sync == Sync::blocking) event->wait();
    return event;
}

backend::EventPtr QueueImpl::copy_to_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                            const void* src, std::size_t bytes, Sync sync) {
    ScopedContext current(device_->context());
    const CUdeviceptr address = ours(dst).address() + dst_offset;
    return enqueue(sync, [&] {
        CU_CHECK(cuMemcpyHtoDAsync(address, src, bytes, stream_),
                 describe("copying " + detail::format_bytes(bytes) +
                          " from the host to a device buffer at offset " +
                          std::to_string(dst_offset)));
    });
}

backend::EventPtr QueueImpl::copy_to_host(void* dst, backend::BufferImpl& src,
                                          std::size_t src_offset, std::size_t bytes, Sync sync) {
    ScopedContext current(device_->context());
    const CUdeviceptr address = ours(src).address() + src_offset;
    return enqueue(sync, [&] {
        CU_CHECK(cuMemcpyDtoHAsync(dst, address, bytes, stream_),
                 describe("copying " + detail::format_bytes(bytes) +
                          " from a device buffer at offset " + std::to_string(src_offset) +
                          " to the host"));
    });
}

backend::EventPtr QueueImpl::copy_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                         backend::BufferImpl& src, std::size_t src_offset,
                                         std::size_t bytes, Sync sync) {
    ScopedContext current(device_->context());
    const CUdeviceptr to = ours(dst).address() + dst_offset;
    const CUdeviceptr from = ours(src).address() + src_offset;
    return enqueue(sync, [&] {
        CU_CHECK(cuMemcpyDtoDAsync(to, from, bytes, stream_),
                 describe("copying " + detail::format_bytes(bytes) +
                          " between device buffers, from offset " + std::to_string(src_offset) +
                          " to offset " + std::to_string(dst_offset)));
    });
}

backend::EventPtr QueueImpl::fill(backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
                                  const void* pattern, std::size_t pattern_size, Sync sync) {
    ScopedContext current(device_->context());
    const CUdeviceptr address = ours(dst).address() + offset;
    return enqueue(sync, [&] {
        // enqueue_fill takes its error context as a ready string, and building that for every
        // fill would cost more than the fill's enqueue: it gets none, and a failure is raised
        // again here with the context.
        try {
            enqueue_fill(stream_, address, bytes, pattern, pattern_size, std::string());
        } catch (const Error& error) {
            ErrorInfo info;
            info.errc = error.errc();
            info.backend = error.backend();
            info.call = error.call();
            info.code = error.code();
            info.code_name = error.code_name();
            info.context = describe("filling " + detail::format_bytes(bytes) + " at offset " +
                                    std::to_string(offset) + " with a " +
                                    std::to_string(pattern_size) + "-byte pattern");
            info.detail = error.detail();
            detail::raise(std::move(info));
        }
    });
}

backend::EventPtr QueueImpl::launch(backend::KernelImpl& kernel,
                                    const backend::LaunchGeometry& geometry,
                                    backend::KernelArgs args) {
    const KernelImpl& function = ours(kernel);
    const LaunchConfig config = launch_config(function, *device_, geometry);
    LaunchArguments arguments(args);

    ScopedContext current(device_->context());
    if (arguments.shared_bytes() > device_->info().local_memory_bytes) {
        function.allow_dynamic_shared(arguments.shared_bytes());
    }
    return enqueue(Sync::async, [&] {
        CU_CHECK(cuLaunchKernel(function.function(), config.grid[0], config.grid[1],
                                config.grid[2], config.block[0], config.block[1], config.block[2],
                                static_cast<unsigned>(arguments.shared_bytes()), stream_,
                                arguments.pointers(), nullptr),
                 describe("launching kernel '" + function.name() + "' over " +
                          config.describe() + " with " +
                          detail::format_bytes(arguments.shared_bytes()) +
                          " of dynamic shared memory"));
    });
}

backend::EventPtr QueueImpl::launch_graph(CUgraphExec graph) {
    ScopedContext current(device_->context());
    return enqueue(Sync::async, [&] {
        CU_CHECK(cuGraphLaunch(graph, stream_), describe("replaying a recording (a CUDA graph)"));
    });
}

backend::EventPtr QueueImpl::copy_peer(backend::BufferImpl& dst, std::size_t dst_offset,
                                      backend::BufferImpl& src, std::size_t src_offset,
                                      std::size_t bytes) {
    // One of the two is this queue's device, the other a CUDA peer of it (checked by the core).
    const auto& to = static_cast<const DeviceImpl&>(dst.device());
    const auto& from = static_cast<const DeviceImpl&>(src.device());
    (&to == device_.get() ? to : from).enable_peer_access(&to == device_.get() ? from : to);
    ScopedContext current(device_->context());
    const CUdeviceptr to_address = ours(dst).address() + dst_offset;
    const CUdeviceptr from_address = ours(src).address() + src_offset;
    return enqueue(Sync::async, [&] {
        CU_CHECK(cuMemcpyPeerAsync(to_address, to.context(), from_address, from.context(), bytes,
                                   stream_),
                 describe("copying " + detail::format_bytes(bytes) + " from " + from.describe() +
                          " to " + to.describe() + " (peer copy)"));
    });
}

backend::EventPtr QueueImpl::record() {
    if (!timed_) return mark();  // a queue without timing: an untimed point, pooled
    ScopedContext current(device_->context());
    // Both released after the lock: their destructors take it. From its construction on, `event`
    // holds the CUevent, so a failed record below gives it back to the pool.
    std::shared_ptr<EventImpl> event, previous;
    std::lock_guard<std::mutex> lock(mutex_);
    const CUevent native = timed_pool_.take(*device_);
    event = std::make_shared<EventImpl>(shared_from_this(), native);
    previous = record_last_locked();
    CU_CHECK(cuEventRecord(native, stream_), describe("recording a timed event"));
    return event;
}

backend::EventPtr QueueImpl::mark() {
    // Allocated before the lock, to keep the lock short.
    auto fresh = std::make_shared<EventImpl>(shared_from_this());
    std::lock_guard<std::mutex> lock(mutex_);
    // The last command's event marks exactly this point (a wait or a timed record since then
    // adds no work); held by someone, it is the queue's pending event or recorded already.
    if (std::shared_ptr<EventImpl> last = last_.lock()) return last;
    fresh->set_sequence(sequence_);
    last_ = fresh;
    return fresh;
}

void QueueImpl::wait_for(backend::EventImpl& event) {
    ScopedContext current(device_->context());
    // Recorded first, outside this queue's mutex: it may be this queue's own pending event, and
    // recording that takes the mutex. The caller holds the event, so its CUevent stays ours.
    const CUevent native = ours(event).cu_event();
    std::shared_ptr<EventImpl> previous;
    std::lock_guard<std::mutex> lock(mutex_);
    // The previous enqueue's event must mark the point before this wait, not after it.
    previous = record_last_locked();
    CU_CHECK(cuStreamWaitEvent(stream_, native, 0),
             describe("waiting for an event of another queue"));
}

void QueueImpl::finish() {
    ScopedContext current(device_->context());
    {
        // A pending event recorded after the synchronisation might not read complete yet when
        // the caller, told that all work is done, asks the event.
        std::shared_ptr<EventImpl> previous;  // released after the lock
        std::lock_guard<std::mutex> lock(mutex_);
        previous = record_last_locked();
    }
    CU_CHECK(cuStreamSynchronize(stream_), describe("finishing"));
}

NativeHandle QueueImpl::native_handle() const {
    // QueueImpls are never const objects; recording the pending event changes no observable state.
    auto& self = const_cast<QueueImpl&>(*this);
    ScopedContext current(device_->context());
    std::shared_ptr<EventImpl> previous;
    {
        std::lock_guard<std::mutex> lock(self.mutex_);
        previous = self.record_last_locked();
        // Work the caller adds natively comes after that event: mark() must not return it.
        self.last_.reset();
    }
    return reinterpret_cast<NativeHandle>(stream_);
}

}  // namespace dualrt::cuda
