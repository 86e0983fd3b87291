/// @file
/// Timelines of device work: spans of queue activity timed with device events, written as a
/// Chrome/Perfetto trace (JSON) or drawn as an SVG picture of the lanes.
#pragma once

#include <dualrt/event.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dualrt {

namespace backend {
class DeviceImpl;
class QueueImpl;
}
class Queue;

/// One stretch of device work on one track (a queue), in milliseconds of device time from the
/// timeline's origin.
struct TraceSpan {
    std::size_t track = 0;  ///< index into Timeline::tracks
    std::string name;       ///< e.g. "upload 3"
    std::string category;   ///< e.g. "upload", "compute", "download"; colours the SVG
    double start_ms = 0.0;  ///< where the span starts, from the timeline's origin
    double end_ms = 0.0;    ///< where the span ends, from the timeline's origin
};

/// Resolved spans, ready to write. A plain value: build one yourself or get it from a Trace or a
/// Pipeline report.
struct Timeline {
    std::vector<std::string> tracks;  ///< one per queue, in the order they are drawn
    std::vector<TraceSpan> spans;     ///< the spans, on any track, in any order

    double duration_ms() const;  ///< latest end over all spans (0 when empty)

    /// Chrome trace-event format (chrome://tracing, https://ui.perfetto.dev): one thread per
    /// track, one complete ("X") event per span, timestamps in microseconds.
    std::string chrome_json() const;
    /// Writes chrome_json() to a file. Throws Errc::io_error naming the path when it cannot be
    /// written.
    void write_chrome_json(const std::string& path) const;
    /// Throws Errc::invalid_argument naming the first span that sits on no track, has a time
    /// that is not a finite number, or ends before it starts: a Timeline is a plain value, and
    /// the exporters check it rather than write a file a viewer rejects or draws wrongly.
    void check() const;
};

/// Marks regions of queue activity so they can be exported as a Timeline:
///
/// @code{.cpp}
/// dualrt::Trace trace;
/// auto region = trace.begin(upload_queue, "upload 0", "upload");
/// upload_queue.copy(buffer, host);
/// trace.end(region);
/// ...
/// trace.timeline().write_chrome_json("overlap.json");  // open in https://ui.perfetto.dev
/// @endcode
///
/// begin/end record timed events on the queue (Queue::record), so a region covers exactly the
/// device work enqueued on that queue between the two calls. Tracks are named after the order in
/// which queues first appear ("queue 0", ...) unless named with name_track. All queues of one
/// Trace must belong to one device. Thread-safe.
class Trace {
public:
    /// A region begun with begin(), to pass to end().
    struct Region {
        std::size_t index = static_cast<std::size_t>(-1);  ///< internal: which span
    };

    Trace() = default;  ///< an empty trace: no tracks, no regions
    Trace(const Trace&) = delete;             ///< not copyable (it holds pending events)
    Trace& operator=(const Trace&) = delete;  ///< not copyable (it holds pending events)

    /// Names the track of `queue` (added if not seen yet) in the exported timeline.
    void name_track(const Queue& queue, std::string name);
    /// Begins a region on `queue`: the span `name` of `category` (which colours the SVG) covers
    /// the work enqueued on `queue` from now until end().
    Region begin(Queue& queue, std::string name, std::string category = {});
    void end(Region region);  ///< on the queue begin() used

    bool empty() const;  ///< whether no region has been begun
    /// Waits for every recorded event and resolves the spans. The origin (0 ms) is the earliest
    /// begin. Throws Errc::invalid_argument when a region was begun but not ended.
    Timeline timeline() const;

private:
    struct Pending {
        std::size_t track = 0;
        std::string name;
        std::string category;
        Event begin;
        Event end;  // empty until end()
    };
    // The track of `queue`, added (named "queue N") on first sight. Caller holds mutex_ and has
    // checked the device with require_device.
    std::size_t track_of(const Queue& queue);
    // Throws unless `queue` runs on the device of the queues seen so far; the first one sets it.
    void require_device(const char* operation, const Queue& queue);

    mutable std::mutex mutex_;
    std::vector<std::string> track_names_;
    // QueueImpl identity per track. Weak, so the Trace does not keep queues alive, and compared
    // by owner (control block), so a new queue allocated where a destroyed one lived is a new
    // track. end() locks it to record on the queue that begin() used.
    std::vector<std::weak_ptr<backend::QueueImpl>> track_queues_;
    std::shared_ptr<backend::DeviceImpl> device_;  // of every queue; null until the first
    std::vector<Pending> pending_;
};

}  // namespace dualrt
