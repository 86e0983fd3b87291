#include <dualrt/event.hpp>

#include "backend/backend.hpp"
#include "backend/launch_journal.hpp"
#include "runtime/enqueue_watch.hpp"
#include "support/raise.hpp"

namespace dualrt {

Event::Event(std::shared_ptr<backend::EventImpl> impl) : impl_(std::move(impl)) {}

void Event::wait() const {
    if (!impl_) detail::raise_argument("Event::wait", "the Event is empty");
    detail::reporting_faults(impl_->device(), [&] { impl_->wait(); });
    detail::watch_host_wait(impl_->device());
}

bool Event::is_complete() const {
    if (!impl_) detail::raise_argument("Event::is_complete", "the Event is empty");
    return detail::reporting_faults(impl_->device(), [&] { return impl_->is_complete(); });
}

double Event::elapsed_ms(const Event& start, const Event& end) {
    if (!start.impl_ || !end.impl_)
        detail::raise_argument("Event::elapsed_ms", "an Event is empty");
    if (&start.impl_->device() != &end.impl_->device())
        detail::raise_argument("Event::elapsed_ms",
                               "the two events belong to different devices ('" +
                                   start.impl_->device().info().name + "' and '" +
                                   end.impl_->device().info().name + "')");
    if (!start.impl_->timed() || !end.impl_->timed())
        detail::raise_argument("Event::elapsed_ms",
                               std::string("the ") +
                                   (!start.impl_->timed() ? "start" : "end") +
                                   " event carries no timestamp: time device work between "
                                   "events from Queue::record() on queues with timing (the "
                                   "default; QueueOptions::timing), not the events that "
                                   "copies, fills and launches return");
    return detail::reporting_faults(start.impl_->device(), [&] {
        start.impl_->wait();
        end.impl_->wait();
        return end.impl_->elapsed_ms_since(*start.impl_);
    });
}

NativeHandle Event::native_handle() const {
    if (!impl_) detail::raise_argument("Event::native_handle", "the Event is empty");
    return impl_->native_handle();
}

}  // namespace dualrt
