// Queue: argument checks, then dispatch to the backend.
#include <dualrt/device.hpp>
#include <dualrt/queue.hpp>
#include <dualrt/runtime.hpp>

#include "backend/backend.hpp"
#include "backend/backend_access.hpp"
#include "backend/launch_journal.hpp"
#include "kernels/launch_check.hpp"
#include "runtime/enqueue_watch.hpp"
#include "runtime/queue_recording.hpp"
#include "staging/cross_device.hpp"
#include "staging/pinned_ranges.hpp"
#include "staging/staged_copy.hpp"
#include "support/environment.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <cstdlib>
#include <cstring>

namespace dualrt {
namespace {

std::string elements(std::size_t bytes, std::size_t elem_size) {
    return std::to_string(bytes / elem_size) + (elem_size == 1 ? " bytes" : " elements");
}

}  // namespace

Queue::Queue(std::shared_ptr<backend::QueueImpl> impl, std::shared_ptr<backend::DeviceImpl> device)
    : impl_(std::move(impl)), device_(std::move(device)) {}

Device Queue::device() const {
    require_valid("Queue::device");
    return Device(device_);
}

void Queue::require_valid(const char* operation) const {
    if (!impl_) detail::raise_argument(operation, "the Queue is empty (default-constructed)");
}

void Queue::require_same_device(const char* operation, const BufferView& buffer,
                                const char* role) const {
    if (!buffer.valid())
        detail::raise_argument(operation, std::string("the ") + role + " Buffer is empty");
    const auto& owner = detail::backend_of(buffer)->device();
    if (&owner != device_.get())
        detail::raise_argument(operation, std::string("the ") + role +
                                              " buffer belongs to device " +
                                              detail::device_label(owner.info()) +
                                              ", but this queue runs on " +
                                              detail::device_label(device_->info()));
}

Event Queue::after_enqueue(std::shared_ptr<backend::EventImpl> event, Sync sync,
                           const char* what, const std::string* name) {
    if (detail::sync_after_every_enqueue()) {
        detail::reporting_faults(*device_, [&] {
            impl_->finish();
            event->wait();  // reports the failed command's own status where the backend knows it
        });
        sync = Sync::blocking;
    }
    // The in-order queue has done everything enqueued before: no kernel of it is in flight.
    if (sync == Sync::blocking) detail::journal_queue_done(*device_, impl_.get());
    else detail::watch_enqueue(*device_, *impl_, what, name);
    return Event(std::move(event));
}

Event Queue::write_bytes(const BufferView& dst, const void* src, std::size_t bytes,
                         std::size_t elem_size, Sync sync, HostMemory host) {
    const char* op = "Queue::copy (host to device)";
    require_valid(op);
    require_same_device(op, dst, "destination");
    if (bytes != dst.bytes())
        detail::raise_argument(op, "size mismatch: the source holds " + elements(bytes, elem_size) +
                                       ", the destination buffer " +
                                       elements(dst.bytes(), elem_size) +
                                       " (copy into dst.view(offset, count) for part of a buffer)");
    if (bytes == 0) return impl_->recording() ? recorded() : record();
    if (src == nullptr) detail::raise_argument(op, "the source pointer is null");
    if (auto* recording = recording_for(op, sync)) {
        return recording->copy_to_device(
            dst, detail::pinned_for_recording(op, "source", *device_, src, bytes), bytes);
    }
    if (host == HostMemory::pageable && detail::worth_staging_upload(*device_, bytes) &&
        !detail::dma_capable(*device_, src, bytes)) {
        auto staged = detail::reporting_faults(*device_, [&] {
            return detail::staged_write(device_, *impl_, *detail::backend_of(dst),
                                        dst.offset_bytes(), src, bytes, sync);
        });
        if (staged) return after_enqueue(std::move(staged), sync);
    }
    return after_enqueue(detail::reporting_faults(*device_, [&] {
                             return impl_->copy_to_device(*detail::backend_of(dst),
                                                          dst.offset_bytes(), src, bytes, sync);
                         }),
                         sync);
}

Event Queue::read_bytes(void* dst, std::size_t bytes, const BufferView& src, std::size_t elem_size,
                        Sync sync, HostMemory host) {
    const char* op = "Queue::copy (device to host)";
    require_valid(op);
    require_same_device(op, src, "source");
    if (bytes != src.bytes())
        detail::raise_argument(op, "size mismatch: the source buffer holds " +
                                       elements(src.bytes(), elem_size) + ", the destination " +
                                       elements(bytes, elem_size) +
                                       " (copy from src.view(offset, count) for part of a buffer)");
    if (bytes == 0) return impl_->recording() ? recorded() : record();
    if (dst == nullptr) detail::raise_argument(op, "the destination pointer is null");
    if (auto* recording = recording_for(op, sync)) {
        return recording->copy_to_host(
            detail::pinned_for_recording(op, "destination", *device_, dst, bytes), src, bytes);
    }
    if (host == HostMemory::pageable && detail::worth_staging_download(*device_, bytes) &&
        !detail::dma_capable(*device_, dst, bytes)) {
        auto staged = detail::reporting_faults(*device_, [&] {
            return detail::staged_read(device_, *impl_, dst, *detail::backend_of(src),
                                       src.offset_bytes(), bytes, sync);
        });
        if (staged) return after_enqueue(std::move(staged), sync);
    }
    return after_enqueue(detail::reporting_faults(*device_, [&] {
                             return impl_->copy_to_host(dst, *detail::backend_of(src),
                                                        src.offset_bytes(), bytes, sync);
                         }),
                         sync);
}

Event Queue::copy_bytes(const BufferView& dst, const BufferView& src, std::size_t elem_size,
                        Sync sync) {
    const char* op = "Queue::copy (device to device)";
    require_valid(op);
    if (!dst.valid()) detail::raise_argument(op, "the destination Buffer is empty");
    if (!src.valid()) detail::raise_argument(op, "the source Buffer is empty");
    const backend::DeviceImpl& to = detail::backend_of(dst)->device();
    const backend::DeviceImpl& from = detail::backend_of(src)->device();
    if (&to != device_.get() && &from != device_.get())
        detail::raise_argument(op, "the copy is from device " + detail::device_label(from.info()) +
                                       " to device " + detail::device_label(to.info()) +
                                       ", but this queue runs on " +
                                       detail::device_label(device_->info()) +
                                       "; enqueue it on a queue of either device");
    if (dst.bytes() != src.bytes())
        detail::raise_argument(op, "size mismatch: the source holds " +
                                       elements(src.bytes(), elem_size) + ", the destination " +
                                       elements(dst.bytes(), elem_size));
    if (src.bytes() == 0) return impl_->recording() ? recorded() : record();
    auto* recording = recording_for(op, sync);
    if (recording != nullptr && &to != &from)
        detail::raise_argument(op, "a copy between devices cannot be recorded (it may pass "
                                   "through the host); record copies within one device");
    if (&to != &from)
        return after_enqueue(detail::reporting_faults(*device_, [&] {
                                 return detail::copy_across(device_, *impl_, dst, src, sync);
                             }),
                             sync);
    const bool same_allocation = detail::backend_of(dst) == detail::backend_of(src);
    const bool overlap = same_allocation && dst.offset_bytes() < src.offset_bytes() + src.bytes() &&
                         src.offset_bytes() < dst.offset_bytes() + dst.bytes();
    if (overlap)
        detail::raise_argument(op, "the source and destination ranges of one buffer overlap");
    if (recording != nullptr) return recording->copy_device(dst, src);
    return after_enqueue(detail::reporting_faults(*device_, [&] {
                             return impl_->copy_device(*detail::backend_of(dst), dst.offset_bytes(),
                                                       *detail::backend_of(src), src.offset_bytes(),
                                                       src.bytes(), sync);
                         }),
                         sync);
}

Event Queue::fill_bytes(const BufferView& dst, const void* pattern, std::size_t pattern_size,
                        Sync sync) {
    const char* op = "Queue::fill";
    require_valid(op);
    require_same_device(op, dst, "destination");
    const bool power_of_two = pattern_size != 0 && (pattern_size & (pattern_size - 1)) == 0;
    if (!power_of_two || pattern_size > 128)
        detail::raise_argument(op, "the element size is " + std::to_string(pattern_size) +
                                       " bytes; fill needs a power of two from 1 to 128");
    if (dst.offset_bytes() % pattern_size != 0)
        detail::raise_argument(op, "the view starts at byte " + std::to_string(dst.offset_bytes()) +
                                       ", not a multiple of the " + std::to_string(pattern_size) +
                                       "-byte element");
    if (dst.bytes() == 0) return impl_->recording() ? recorded() : record();
    if (auto* recording = recording_for(op, sync))
        return recording->fill(dst, pattern, pattern_size);
    return after_enqueue(detail::reporting_faults(*device_, [&] {
                             return impl_->fill(*detail::backend_of(dst), dst.offset_bytes(),
                                                dst.bytes(), pattern, pattern_size, sync);
                         }),
                         sync);
}

Event Queue::launch_checked(const Kernel& kernel, Range global, Range local,
                            const KernelArgument* args, std::size_t count) {
    require_valid("Queue::launch");
    if (!kernel.valid()) detail::raise_argument("Queue::launch", "the Kernel is empty");
    auto& impl = *detail::backend_of(kernel);
    if (&impl.device() != device_.get())
        detail::raise_argument("Queue::launch('" + impl.name() + "')",
                               "the kernel was made for device " +
                                   detail::device_label(impl.device().info()) +
                                   ", but this queue runs on " +
                                   detail::device_label(device_->info()));
    const auto geometry = detail::launch_geometry(impl, global, local, device_->info());
    detail::CheckedArguments checked(count);
    detail::check_arguments(impl, args, count, *device_, checked);
    if (auto* recording = recording_for("Queue::launch", Sync::async))
        return recording->launch(kernel, geometry, checked.view(), args, count);
    auto event = detail::reporting_faults(
        *device_, [&] { return impl_->launch(impl, geometry, checked.view()); });
    detail::journal_launch(*device_, impl_.get(), impl.name());
    return after_enqueue(std::move(event), Sync::async, "a launch of", &impl.name());
}

Event Queue::record() {
    require_valid("Queue::record");
    refuse_while_recording("Queue::record");
    return Event(detail::reporting_faults(*device_, [&] { return impl_->record(); }));
}

Event Queue::mark() {
    require_valid("Queue::mark");
    refuse_while_recording("Queue::mark");
    return Event(detail::reporting_faults(*device_, [&] { return impl_->mark(); }));
}

void Queue::wait(const Event& event) {
    require_valid("Queue::wait");
    if (!event.valid()) detail::raise_argument("Queue::wait", "the Event is empty");
    if (auto* recording = impl_->recording()) {
        recording->wait(*detail::backend_of(event));
        return;
    }
    if (detail::is_recorded_event(*detail::backend_of(event)))
        detail::raise_argument("Queue::wait", "the Event is of a recorded command, which runs "
                                              "only when replayed; wait for the Event "
                                              "Queue::replay returns instead");
    detail::reporting_faults(*device_, [&] {
        auto& waited = *detail::backend_of(event);
        if (&waited.device() == device_.get()) impl_->wait_for(waited);
        else detail::wait_across(*device_, *impl_, waited);
    });
    detail::watch_wait(*impl_);
}

void Queue::finish() {
    require_valid("Queue::finish");
    refuse_while_recording("Queue::finish");
    detail::reporting_faults(*device_, [&] { impl_->finish(); });
    detail::journal_queue_done(*device_, impl_.get());
    detail::watch_finish(*impl_);
}

NativeHandle Queue::native_handle() const {
    require_valid("Queue::native_handle");
    return impl_->native_handle();
}

}  // namespace dualrt
