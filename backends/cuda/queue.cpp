// QueueImpl: copies, fills, kernel launches, events and waits on one CUstream.
#include "queue.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "errors.hpp"
#include "event.hpp"
#include "fill.hpp"
#include "launch.hpp"
#include "program.hpp"

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

QueueImpl::QueueImpl(std::shared_ptr<DeviceImpl> device) : device_(std::move(device)) {
    ScopedContext current(device_->context());
    CU_CHECK(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
             "creating a stream on " + device_->describe());
}

QueueImpl::~QueueImpl() {
    ScopedContext current(device_->context(), ScopedContext::no_throw);
    CU_CHECK_NOTHROW(cuStreamDestroy(stream_), "destroying a stream of " + device_->describe());
}

const backend::DeviceImpl& QueueImpl::device() const { return *device_; }

std::string QueueImpl::describe(const std::string& what) const {
    return "queue of " + device_->describe() + ": " + what;
}

backend::EventPtr QueueImpl::enqueued(Sync sync) {
    auto event = EventImpl::record(device_, stream_, false);
    if (sync == Sync::blocking) event->wait();
    return event;
}

backend::EventPtr QueueImpl::copy_to_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                            const void* src, std::size_t bytes, Sync sync) {
    ScopedContext current(device_->context());
    CU_CHECK(cuMemcpyHtoDAsync(ours(dst).address() + dst_offset, src, bytes, stream_),
             describe("copying " + detail::format_bytes(bytes) +
                      " from the host to a device buffer at offset " + std::to_string(dst_offset)));
    return enqueued(sync);
}

backend::EventPtr QueueImpl::copy_to_host(void* dst, backend::BufferImpl& src,
                                          std::size_t src_offset, std::size_t bytes, Sync sync) {
    ScopedContext current(device_->context());
    CU_CHECK(cuMemcpyDtoHAsync(dst, ours(src).address() + src_offset, bytes, stream_),
             describe("copying " + detail::format_bytes(bytes) +
                      " from a device buffer at offset " + std::to_string(src_offset) +
                      " to the host"));
    return enqueued(sync);
}

backend::EventPtr QueueImpl::copy_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                         backend::BufferImpl& src, std::size_t src_offset,
                                         std::size_t bytes, Sync sync) {
    ScopedContext current(device_->context());
    CU_CHECK(cuMemcpyDtoDAsync(ours(dst).address() + dst_offset,
                               ours(src).address() + src_offset, bytes, stream_),
             describe("copying " + detail::format_bytes(bytes) + " between device buffers, from "
                      "offset " + std::to_string(src_offset) + " to offset " +
                      std::to_string(dst_offset)));
    return enqueued(sync);
}

backend::EventPtr QueueImpl::fill(backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
                                  const void* pattern, std::size_t pattern_size, Sync sync) {
    ScopedContext current(device_->context());
    enqueue_fill(stream_, ours(dst).address() + offset, bytes, pattern, pattern_size,
                 describe("filling " + detail::format_bytes(bytes) + " at offset " +
                          std::to_string(offset) + " with a " + std::to_string(pattern_size) +
                          "-byte pattern"));
    return enqueued(sync);
}

backend::EventPtr QueueImpl::launch(backend::KernelImpl& kernel,
                                    const backend::LaunchGeometry& geometry,
                                    const std::vector<backend::KernelArg>& args) {
    const KernelImpl& function = ours(kernel);
    const LaunchConfig config = launch_config(function, *device_, geometry);
    LaunchArguments arguments(args);

    ScopedContext current(device_->context());
    if (arguments.shared_bytes() > device_->info().local_memory_bytes) {
        function.allow_dynamic_shared(arguments.shared_bytes());
    }
    CU_CHECK(cuLaunchKernel(function.function(), config.grid[0], config.grid[1], config.grid[2],
                            config.block[0], config.block[1], config.block[2],
                            static_cast<unsigned>(arguments.shared_bytes()), stream_,
                            arguments.pointers(), nullptr),
             describe("launching kernel '" + function.name() + "' over " +
                      config.describe() + " with " +
                      detail::format_bytes(arguments.shared_bytes()) + " of dynamic shared memory"));
    return enqueued(Sync::async);
}

backend::EventPtr QueueImpl::record() { return EventImpl::record(device_, stream_, true); }

void QueueImpl::wait_for(backend::EventImpl& event) {
    ScopedContext current(device_->context());
    CU_CHECK(cuStreamWaitEvent(stream_, ours(event).cu_event(), 0),
             describe("waiting for an event of another queue"));
}

void QueueImpl::finish() {
    ScopedContext current(device_->context());
    CU_CHECK(cuStreamSynchronize(stream_), describe("finishing"));
}

NativeHandle QueueImpl::native_handle() const { return reinterpret_cast<NativeHandle>(stream_); }

}  // namespace dualrt::cuda
