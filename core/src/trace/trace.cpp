// Trace: regions of queue activity marked with timed events, resolved into a Timeline.
#include <dualrt/device.hpp>
#include <dualrt/queue.hpp>
#include <dualrt/trace.hpp>

#include "backend/backend_access.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace dualrt {
namespace {

void require_queue(const char* operation, const Queue& queue) {
    if (!queue.valid())
        detail::raise_argument(operation, "the Queue is empty (default-constructed)");
}

// Whether two weak pointers name the same object, also after it is gone: comparing control
// blocks rather than addresses, which a later allocation may reuse.
template <typename T>
bool same_owner(const std::weak_ptr<T>& a, const std::shared_ptr<T>& b) {
    return !a.owner_before(b) && !b.owner_before(a);
}

}  // namespace

void Trace::require_device(const char* operation, const Queue& queue) {
    const Device device = queue.device();
    if (!device_) {
        device_ = detail::backend_of(device);
        return;
    }
    if (detail::backend_of(device) != device_)
        detail::raise_argument(
            operation, "all queues of one Trace must belong to one device: this queue runs on '" +
                           device.name() + "', the queues traced so far on '" +
                           Device(device_).name() + "'");
}

std::size_t Trace::track_of(const Queue& queue) {
    for (std::size_t track = 0; track < track_queues_.size(); ++track)
        if (same_owner(track_queues_[track], detail::backend_of(queue))) return track;
    track_queues_.emplace_back(detail::backend_of(queue));
    track_names_.push_back("queue " + std::to_string(track_names_.size()));
    return track_queues_.size() - 1;
}

void Trace::name_track(const Queue& queue, std::string name) {
    require_queue("Trace::name_track", queue);
    const std::lock_guard<std::mutex> lock(mutex_);
    require_device("Trace::name_track", queue);
    track_names_[track_of(queue)] = std::move(name);
}

Trace::Region Trace::begin(Queue& queue, std::string name, std::string category) {
    require_queue("Trace::begin", queue);
    // Recorded under the lock, so that regions begun on one queue by several threads are stored
    // in the order of their events on that queue.
    const std::lock_guard<std::mutex> lock(mutex_);
    require_device("Trace::begin", queue);
    Pending pending;
    pending.begin = queue.record();
    pending.track = track_of(queue);
    pending.name = std::move(name);
    pending.category = std::move(category);
    pending_.push_back(std::move(pending));
    return Region{pending_.size() - 1};
}

void Trace::end(Region region) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (region.index >= pending_.size())
        detail::raise_argument(
            "Trace::end", region.index == Region{}.index
                              ? std::string("the Region was not returned by Trace::begin")
                              : "no region " + std::to_string(region.index) +
                                    " in this Trace (it has " + std::to_string(pending_.size()) +
                                    "): pass the Region that this Trace's begin() returned");
    Pending& pending = pending_[region.index];
    const std::string& track_name = track_names_[pending.track];
    if (pending.end.valid())
        detail::raise_argument("Trace::end", "region '" + pending.name + "' on '" + track_name +
                                                 "' has already ended; end() each region once");
    const auto queue_impl = track_queues_[pending.track].lock();
    if (!queue_impl)
        detail::raise_argument("Trace::end", "the queue of region '" + pending.name + "' ('" +
                                                 track_name +
                                                 "') was destroyed before the region ended; "
                                                 "keep it until end()");
    Queue queue(queue_impl, device_);
    pending.end = queue.record();
}

bool Trace::empty() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return pending_.empty();
}

Timeline Trace::timeline() const {
    // Copy under the lock, wait outside it: waiting for the device must not stall threads that
    // are still marking regions.
    Timeline timeline;
    std::vector<Pending> pending;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        for (const Pending& p : pending_)
            if (!p.end.valid())
                detail::raise_argument("Trace::timeline",
                                       "region '" + p.name + "' on '" + track_names_[p.track] +
                                           "' was begun but not ended; end() every region "
                                           "before asking for the timeline");
        timeline.tracks = track_names_;
        pending = pending_;
    }
    if (pending.empty()) return timeline;

    // Times relative to the first recorded begin. Regions of other queues may have begun on the
    // device before it (elapsed_ms is then negative), so the origin is moved to the earliest.
    const Event& reference = pending.front().begin;
    double origin = std::numeric_limits<double>::infinity();
    timeline.spans.reserve(pending.size());
    for (Pending& p : pending) {
        TraceSpan span;
        span.track = p.track;
        span.name = std::move(p.name);
        span.category = std::move(p.category);
        span.start_ms = Event::elapsed_ms(reference, p.begin);
        // The queue is in order, so end follows begin; max() only absorbs timer rounding.
        span.end_ms = std::max(span.start_ms, Event::elapsed_ms(reference, p.end));
        origin = std::min(origin, span.start_ms);
        timeline.spans.push_back(std::move(span));
    }
    for (TraceSpan& span : timeline.spans) {
        span.start_ms -= origin;
        span.end_ms -= origin;
    }
    return timeline;
}

}  // namespace dualrt
