// The enqueue loop of a Pipeline: moves chunks through upload, compute and download on the
// pipeline's queues, reusing a fixed set of device (and pinned host) buffers. It joins stages
// with events only where they run on different queues, keeps an enqueue's event only where
// something waits for it, and blocks the host only to reuse a pinned staging buffer. Internal.
#pragma once

#include <dualrt/event.hpp>
#include <dualrt/pipeline.hpp>
#include <dualrt/queue.hpp>

#include "run/chunk_buffers.hpp"
#include "run/chunk_extents.hpp"
#include "run/run_timing.hpp"
#include "support/parallel_copy.hpp"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <functional>
#include <vector>

namespace dualrt::detail {

// A pipeline's queues, and which of them runs each stage of chunk i.
struct PipelineQueues {
    PipelineMode mode = PipelineMode::lanes;
    std::vector<Queue> queues;  // lanes: one per lane; two: copy, compute; three: up, compute, down

    Queue& upload(std::size_t i) { return mode == PipelineMode::lanes ? lane(i) : queues[0]; }
    Queue& compute(std::size_t i) { return mode == PipelineMode::lanes ? lane(i) : queues[1]; }
    Queue& download(std::size_t i) {
        if (mode == PipelineMode::lanes) return lane(i);
        return mode == PipelineMode::three_queues ? queues[2] : queues[0];
    }
    void finish_all();             // blocks until every queue is idle
    void drain_quietly() noexcept;  // the same, swallowing errors (an error is on its way out)
    // The first `n` queues alone (the same queues): for a run on fewer lanes.
    PipelineQueues first(std::size_t n) const {
        PipelineQueues fewer;
        fewer.mode = mode;
        fewer.queues.assign(queues.begin(), queues.begin() + std::min(n, queues.size()));
        return fewer;
    }

private:
    Queue& lane(std::size_t i) { return queues[i % queues.size()]; }
};

// A run's host arrays and how they are cut.
struct RunArrays {
    std::vector<HostSide> inputs, outputs;
    Halo halo;
    std::size_t count = 0;
};

// Whether some array of the run is pageable host memory (staged through pinned buffers).
inline bool any_staged(const RunArrays& arrays) {
    for (const auto* side : {&arrays.inputs, &arrays.outputs})
        for (const HostSide& array : *side)
            if (!array.pinned) return true;
    return false;
}

using ChunkFunction = std::function<void(const ChunkViews&)>;

// Where one device of a Pipeline over several devices gets its chunks while it runs: asked for
// the next one whenever the device has room for another chunk in flight, and told each time one
// of its chunks has finished (chunk_dealer.hpp deals them).
class ChunkSource {
public:
    enum class Answer {
        take,  // `chunk` is this device's next chunk
        wait,  // ask again once one more of its unfinished chunks has finished
        stop   // no more chunks for this device in this run
    };
    virtual ~ChunkSource() = default;
    // `unfinished`: the device's chunks taken and not yet known to be finished. Never answers
    // wait when it is 0.
    virtual Answer next(std::size_t unfinished, ChunkExtent& chunk) = 0;
    // One of the device's chunks, of `elements` elements, has finished (its download is done).
    virtual void finished(std::size_t elements) = 0;
};

class ChunkScheduler {
public:
    // `input_staging` and `output_staging` hold a ring per array (empty: not staged). A
    // scheduler may be kept for many runs on the same queues and slots, use() giving each its
    // arrays: what it holds from run to run is storage, never a run's events.
    ChunkScheduler(PipelineQueues& queues, const DeviceSlots& slots,
                   const StagingRings& input_staging, const StagingRings& output_staging,
                   std::size_t staging_slots);
    ChunkScheduler(PipelineQueues& queues, const DeviceSlots& slots,
                   const StagingRings& input_staging, const StagingRings& output_staging,
                   std::size_t staging_slots, const RunArrays& arrays, RunTiming& timing,
                   const ChunkFunction& compute);
    // The arrays, timing and compute function of the runs from here on.
    void use(const RunArrays& arrays, RunTiming& timing, const ChunkFunction& compute);

    // Enqueues every chunk of `extents`, records the run's end and waits until all of it is
    // done, staged outputs copied out included. `meanwhile`, where given, is called once every
    // command is enqueued, before any wait: host work that needs nothing from the run. When
    // anything throws, waits for every enqueued command before rethrowing.
    void run(const std::vector<ChunkExtent>& extents,
             const std::function<void()>& meanwhile = {});
    // The same over the chunks `source` hands out, appended to `extents` as they come (indices
    // into `extents` are the chunks' indices for the timing and the compute function). At most
    // one chunk per device slot is unfinished at a time: the host waits for the oldest first.
    void run(ChunkSource& source, std::vector<ChunkExtent>& extents);
    // Enqueues every chunk of `extents` as run() does, on queues that record (every array
    // pinned): the commands go into the recording, nothing runs, nothing is waited for.
    void record(const std::vector<ChunkExtent>& extents);
    // Calls the compute function for every chunk of `extents`, as run() would, with nothing
    // else enqueued: for a digest of what it enqueues (run/run_recordings.hpp).
    void compute_only(const std::vector<ChunkExtent>& extents);


private:
    // The events of a chunk in flight that something may still wait for.
    struct InFlight {
        Event uploaded;    // its last upload, while a compute or a staging refill waits for it
        Event computed;    // the end of its compute, while a download on another queue waits
        Event downloaded;  // its last download, while a slot reuse or a staged copy-out waits
    };
    InFlight& in_flight(std::size_t i) { return in_flight_[i % in_flight_.size()]; }

    // Sets the scheduler up for a run over `extents`.
    void start(const std::vector<ChunkExtent>& extents);
    // Lets go of the run's events: one held when its queue's next command is enqueued would
    // cost a marker there (upload() says so), and the next run's first commands are.
    void release_in_flight();
    // Enqueues every chunk: each upload one step ahead of the previous chunk's compute and
    // download (run() says why); outside a recording, marks the run's end on each queue that
    // downloads and copies landed staged outputs out as it goes.
    void enqueue_chunks();
    // `queue` waits for `event` (a recorded one within record()).
    void wait_on(Queue& queue, const Event& event);
    void upload(std::size_t i);
    void compute(std::size_t i);
    // Calls the compute function for chunk i on `queue`, and checks that it left no work on
    // another queue unordered.
    void call_compute(std::size_t i, Queue& queue);
    // Also submits, now and then, a lane that nothing waits on, so that its queue has started
    // its work: OpenCL runs a command only once its queue is flushed.
    void download(std::size_t i);
    // Copies landed staged outputs to the host, oldest first: all up to chunk `through`
    // (waiting for them), then any others already complete.
    void retire_through(std::size_t through);
    void retire_completed();
    void retire(std::size_t i);
    // Pulling from a ChunkSource: chunk i (the next) taken, none, or to be asked for again
    // once chunk `enqueued` (whose download is not enqueued yet) can be waited for; the host
    // waits for room first, and for chunks before `enqueued` where the source says wait.
    enum class Claimed { taken, none, later };
    Claimed claim(ChunkSource& source, std::size_t i, std::size_t enqueued);
    void finish_oldest(ChunkSource& source);  // waits for the oldest unfinished chunk

    PipelineQueues& queues_;
    const DeviceSlots& slots_;
    const StagingRings& input_staging_;
    const StagingRings& output_staging_;
    const std::size_t staging_slots_;
    const RunArrays* arrays_ = nullptr;
    RunTiming* timing_ = nullptr;
    const ChunkFunction* compute_ = nullptr;
    ParallelCopier& copier_;  // the device's own: devices of one Pipeline stage side by side

    const std::vector<ChunkExtent>* extents_ = nullptr;
    std::vector<InFlight> in_flight_;
    std::deque<std::size_t> unretired_;     // chunks whose staged downloads are not copied out
    std::vector<std::size_t> unnudged_bytes_;  // per lane, moved since it was last submitted
    // Pulling from a ChunkSource: every download's event is kept, to know when chunks finish.
    bool keep_downloads_ = false;
    bool recording_ = false;  // within record(): the copies go into the queues' recording
    std::vector<ChunkExtent>* claimed_ = nullptr;
    std::size_t finished_ = 0;  // chunks known to be finished, oldest first
    // Scratch space reused from chunk to chunk.
    std::vector<const void*> sources_;
    std::vector<BufferView> input_views_, output_views_;
};

}  // namespace dualrt::detail
