// The timed events of a Pipeline run and what they tell: which chunks are timed, the four points
// recorded around a timed chunk's stages, the run's start and end, and, once the run is over,
// the timeline, the measured time and each timed stage's duration. Internal.
#pragma once

#include <dualrt/event.hpp>
#include <dualrt/pipeline.hpp>
#include <dualrt/queue.hpp>
#include <dualrt/trace.hpp>

#include "run/chunk_extents.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <vector>

namespace dualrt::detail {

// The points of a timed chunk: the start of its upload, the end of the upload, of the compute
// and of the download; each on the queue of its stage, taken from the stage's first and last
// commands where the backend can (Queue begin_timed_span / end_timed_span), else timed events
// before and after them.
enum TimedPoint : std::size_t { before_upload = 0, after_upload = 1, after_compute = 2,
                                after_download = 3 };

// One timed stage of one chunk, for the report and the planner. Its span starts where its
// queue let it begin or where the work before it on its engine ended, whichever is later.
struct StageDuration {
    std::size_t chunk = 0;
    std::size_t stage = 0;  // upload_stage, compute_stage or download_stage (stage_model.hpp)
    double ms = 0.0;
    // The work before it on its engine was timed too (or there was none), so the span holds
    // only this stage's own time; otherwise it may include waiting behind untimed work.
    bool known_start = false;
    // It also ended after that work: engines that take chunks in order, as the copy engines and
    // compute units of a GPU do. (A CPU device runs the queues' commands side by side; its spans
    // then say little about any one stage, and the model leaves them out.)
    bool in_order = false;
};

struct ResolvedTiming {
    Timeline timeline;
    double measured_ms = 0.0;
    std::vector<StageDuration> durations;
    std::size_t timed_chunks = 0;
    bool host_clock = false;  // measured_ms read on the host clock: the run timed no event
};

class RunTiming {
public:
    // `timed[i]`: whether chunk i gets all four points. Chunk 0 always gets before_upload: the
    // run's start. With `host_clock` (for queues without timestamps, where no chunk is timed)
    // nothing is recorded: the run's start is read on the host clock before its first command
    // and its end in ended(), after the scheduler waited for its last.
    RunTiming(std::vector<bool> timed, PipelineMode mode, bool host_clock = false);

    bool timed(std::size_t chunk) const { return chunk < timed_.size() && timed_[chunk]; }
    // Around the commands of one stage of `chunk` on `queue`, the stage named by the point that
    // ends it (after_upload, after_compute or after_download): begin_stage before its first
    // command, end_stage after its last, with no other stage begun in between. They record the
    // chunk's points when it is timed (and the run's start, chunk 0's before_upload).
    // Timed points are for the report and the planner only, never for ordering work: on
    // NVIDIA's OpenCL a timed marker ends only once every earlier command of the context has.
    void begin_stage(std::size_t chunk, TimedPoint end, Queue& queue);
    void end_stage(std::size_t chunk, TimedPoint end, Queue& queue);
    // Records the run's end on `queue`, after the last work enqueued on it.
    void mark_end(Queue& queue);
    // With `host_clock`: the run's first command is about to be enqueued, where no stage is
    // begun for it (a replay of the run's recorded commands).
    void started();
    // The run's work has completed: its end, on the host clock (nothing without host_clock).
    void ended();
    // With `host_clock`, once ended: the run's time from its start to its end (else 0).
    double host_ms() const;
    std::size_t records() const { return record_ms_.size(); }
    // The median host cost of one timed event this run (of one timed span, its commands'
    // enqueues included, where the queue times commands), for the estimate of later runs (0 when
    // none was recorded). The median, not the mean: one record caught by a preemption of the
    // thread would otherwise make timing look dear for several runs.
    double typical_record_ms() const;

    // After every recorded point has completed: spans of the timed chunks, the run's measured
    // time and the timed stages' durations. `extents` are the run's chunks.
    ResolvedTiming resolve(const std::vector<ChunkExtent>& extents) const;
    // Gives the recorded events back to their queues (after resolve: nothing can be read after).
    // Apart from the destructor, so that the caller can time what timing cost the host.
    void release_events();

private:
    std::vector<bool> timed_;
    PipelineMode mode_;
    bool host_clock_ = false;
    std::chrono::steady_clock::time_point host_start_, host_end_;
    bool host_started_ = false, host_ended_ = false;
    std::map<std::size_t, std::array<Event, 4>> points_;
    std::vector<Event> ends_;
    std::vector<double> record_ms_;  // each timed event's host cost
    bool span_open_ = false;         // between a begin_stage that began a span and its end
    std::chrono::steady_clock::time_point span_begun_;
    // The recorded point (empty when not recorded).
    const Event& point(std::size_t chunk, TimedPoint point) const;
    // A timed event from `make`, its host cost added to the samples of typical_record_ms().
    template <typename Make>
    Event timed_event(Make&& make);
    // `call` (begin_timed_span or end_timed_span) on `queue`'s backend queue.
    static Event span_event(Queue& queue,
                            std::shared_ptr<backend::EventImpl> (backend::QueueImpl::*call)());
};

}  // namespace dualrt::detail
