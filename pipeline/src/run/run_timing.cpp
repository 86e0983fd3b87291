#include "run/run_timing.hpp"

#include "backend/backend.hpp"
#include "backend/backend_access.hpp"
#include "backend/launch_journal.hpp"
#include "run/median.hpp"
#include "run/stages.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <unordered_map>

namespace dualrt::detail {
namespace {

// One item of a track: a stage of a chunk, in the order the track's engine or queue takes them.
struct TrackItem {
    std::size_t chunk;
    std::size_t stage;  // 0 upload, 1 compute, 2 download
};

// Item `k` of `track`. Every stage has an engine (a copy direction, the compute units) that takes
// chunks in enqueue order; with two queues, uploads and downloads share the copy queue (track 0),
// where each chunk's upload comes before the previous chunk's download: up 0, up 1, down 0,
// up 2, down 1, ..., down n-1.
TrackItem track_item(std::size_t track, std::size_t k, std::size_t chunks, bool two_queues) {
    if (!two_queues) return TrackItem{k, track};
    if (track == 1) return TrackItem{k, 1};
    if (k == 0) return TrackItem{0, 0};
    if (k + 1 == 2 * chunks) return TrackItem{chunks - 1, 2};
    return k % 2 == 1 ? TrackItem{(k + 1) / 2, 0} : TrackItem{k / 2 - 1, 2};
}

std::size_t track_length(std::size_t track, std::size_t chunks, bool two_queues) {
    return two_queues && track == 0 ? 2 * chunks : chunks;
}


}  // namespace

RunTiming::RunTiming(std::vector<bool> timed, PipelineMode mode, bool host_clock)
    : timed_(std::move(timed)), mode_(mode), host_clock_(host_clock) {}

void RunTiming::begin_stage(std::size_t chunk, TimedPoint end, Queue& queue) {
    const bool start = chunk == 0 && end == after_upload;
    if (host_clock_) {
        if (start && !host_started_) started();
        return;
    }
    if (!start && !timed(chunk)) return;
    if (!backend_of(queue)->times_commands()) {
        // A timed event before the stage; the one after it comes in end_stage.
        if (end == after_upload) points_[chunk][before_upload] = timed_event([&] {
            return queue.record();
        });
        return;
    }
    span_begun_ = std::chrono::steady_clock::now();
    Event first = span_event(queue, &backend::QueueImpl::begin_timed_span);
    if (end == after_upload) points_[chunk][before_upload] = std::move(first);
    span_open_ = true;
}

void RunTiming::end_stage(std::size_t chunk, TimedPoint end, Queue& queue) {
    if (host_clock_) return;
    if (!backend_of(queue)->times_commands()) {
        if (timed(chunk)) points_[chunk][end] = timed_event([&] { return queue.record(); });
        return;
    }
    if (!span_open_) return;
    span_open_ = false;
    Event last = span_event(queue, &backend::QueueImpl::end_timed_span);
    if (timed(chunk)) points_[chunk][end] = std::move(last);
    // What the span cost is mostly in its commands: each took its own timed event (7 us more a
    // command on NVIDIA's OpenCL). So the whole span, its enqueues included, is the estimate's
    // sample: it overstates the cost by the commands' own, erring toward untimed runs.
    record_ms_.push_back(std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - span_begun_)
                             .count());
}

Event RunTiming::span_event(Queue& queue, backend::EventPtr (backend::QueueImpl::*call)()) {
    // Through the device's fault journal, as the Queue's own calls go.
    return Event(reporting_faults(*backend_of(queue.device()),
                                  [&] { return (*backend_of(queue).*call)(); }));
}

template <typename Make>
Event RunTiming::timed_event(Make&& make) {
    const auto begun = std::chrono::steady_clock::now();
    Event event = make();
    record_ms_.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begun)
            .count());
    return event;
}

double RunTiming::typical_record_ms() const { return median(record_ms_); }

void RunTiming::release_events() {
    points_.clear();
    ends_.clear();
}

const Event& RunTiming::point(std::size_t chunk, TimedPoint point) const {
    static const Event none;
    const auto found = points_.find(chunk);
    return found == points_.end() ? none : found->second[point];
}

void RunTiming::mark_end(Queue& queue) {
    if (host_clock_) return;
    ends_.push_back(timed_event([&] { return queue.record(); }));
}

void RunTiming::started() {
    if (!host_clock_) return;
    host_start_ = std::chrono::steady_clock::now();
    host_started_ = true;
}

void RunTiming::ended() {
    if (!host_clock_ || !host_started_) return;
    host_end_ = std::chrono::steady_clock::now();
    host_ended_ = true;
}

double RunTiming::host_ms() const {
    if (!host_clock_ || !host_ended_) return 0.0;
    return std::chrono::duration<double, std::milli>(host_end_ - host_start_).count();
}

ResolvedTiming RunTiming::resolve(const std::vector<ChunkExtent>& extents) const {
    ResolvedTiming resolved;
    const bool two = mode_ == PipelineMode::two_queues;
    Timeline& timeline = resolved.timeline;
    timeline.tracks = two ? std::vector<std::string>{"copy", "compute"}
                          : std::vector<std::string>{"upload", "compute", "download"};
    if (host_clock_) {
        resolved.host_clock = true;
        resolved.measured_ms = host_ms();
        return resolved;
    }
    const Event& origin = point(0, before_upload);
    if (!origin.valid()) return resolved;
    // Each point's time from the origin, read once. The run's queues have finished (both of the
    // scheduler's runs end in finish_all), so every point is complete and is read straight from
    // the backend, without Event::elapsed_ms's two waits: on CUDA those were two of every
    // reading's three driver calls, and each inner point was read twice (the end of one stage,
    // the start of the next), which cost 44 us after a 0.74 ms run of four chunks on an H200.
    // A map, not a list searched each time: a run that times every chunk reads thousands.
    std::unordered_map<const backend::EventImpl*, double> read;
    read.reserve(points_.size() * (after_download + 1) + ends_.size());
    const auto at = [&](const Event& e) {
        const auto [entry, fresh] = read.try_emplace(backend_of(e).get(), 0.0);
        if (fresh)
            entry->second = reporting_faults(backend_of(origin)->device(), [&] {
                return backend_of(e)->elapsed_ms_since(*backend_of(origin));
            });
        return entry->second;
    };

    double last_end = 0.0;
    for (const Event& end : ends_) last_end = std::max(last_end, at(end));

    static const char* const stage_names[3] = {"upload", "compute", "download"};
    const std::size_t chunks = extents.size();
    for (std::size_t track = 0; track < timeline.tracks.size(); ++track) {
        // The end of the item before on this track, when that item was timed.
        bool previous_timed = false;
        double previous_end = 0.0;
        bool first = true;
        for (std::size_t k = 0; k < track_length(track, chunks, two); ++k) {
            const TrackItem item = track_item(track, k, chunks, two);
            if (!timed(item.chunk)) {
                previous_timed = false;
                first = false;
                continue;
            }
            const auto& p = points_.at(item.chunk);
            const double ready = at(p[item.stage]);
            const double end = at(p[item.stage + 1]);
            const double start = previous_timed ? std::max(ready, previous_end) : ready;
            TraceSpan span;
            span.track = track;
            span.name = std::string(stage_names[item.stage]) + " " + std::to_string(item.chunk);
            span.category = stage_names[item.stage];
            span.start_ms = start;
            span.end_ms = std::max(start, end);
            last_end = std::max(last_end, span.end_ms);
            StageDuration duration;
            duration.chunk = item.chunk;
            duration.stage = item.stage;
            duration.ms = span.end_ms - span.start_ms;
            duration.known_start = first || previous_timed;
            duration.in_order = (!previous_timed || previous_end <= end) && ready <= end;
            resolved.durations.push_back(duration);
            timeline.spans.push_back(std::move(span));
            // The engine is free once everything before has ended (an out-of-order item ended
            // earlier than the one before it).
            previous_end = previous_timed ? std::max(previous_end, end) : end;
            previous_timed = true;
            first = false;
        }
    }
    resolved.measured_ms = last_end;
    resolved.timed_chunks = static_cast<std::size_t>(
        std::count(timed_.begin(), timed_.begin() + static_cast<std::ptrdiff_t>(
                                                        std::min(timed_.size(), extents.size())),
                   true));
    return resolved;
}

}  // namespace dualrt::detail
