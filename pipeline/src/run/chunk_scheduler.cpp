#include "run/chunk_scheduler.hpp"

#include "backend/backend_access.hpp"
#include "runtime/enqueue_watch.hpp"
#include "runtime/queue_recording.hpp"
#include "support/raise.hpp"
#include "support/parallel_copy.hpp"

#include <algorithm>

namespace dualrt::detail {
namespace {

// A lane that nothing waits on is submitted once this many bytes have moved on it since it was
// last submitted (and at its first chunk): often enough that an OpenCL queue never holds much
// unsubmitted work, rarely enough that small chunks do not pay a flush each.
constexpr std::size_t nudge_bytes = std::size_t{2} << 20;

}  // namespace

void PipelineQueues::finish_all() {
    for (Queue& queue : queues) queue.finish();
}

void PipelineQueues::drain_quietly() noexcept {
    for (Queue& queue : queues) {
        try {
            queue.finish();
        } catch (...) {
            // The error being propagated is the one to report; this one follows from it or
            // will be seen again by the next call on the queue.
        }
    }
}

ChunkScheduler::ChunkScheduler(PipelineQueues& queues, const DeviceSlots& slots,
                               const StagingRings& input_staging,
                               const StagingRings& output_staging, std::size_t staging_slots)
    : queues_(queues), slots_(slots), input_staging_(input_staging),
      output_staging_(output_staging), staging_slots_(staging_slots),
      copier_(ParallelCopier::of(backend_of(queues.queues.front().device()).get())) {}

ChunkScheduler::ChunkScheduler(PipelineQueues& queues, const DeviceSlots& slots,
                               const StagingRings& input_staging,
                               const StagingRings& output_staging, std::size_t staging_slots,
                               const RunArrays& arrays, RunTiming& timing,
                               const ChunkFunction& compute)
    : ChunkScheduler(queues, slots, input_staging, output_staging, staging_slots) {
    use(arrays, timing, compute);
}

void ChunkScheduler::use(const RunArrays& arrays, RunTiming& timing,
                         const ChunkFunction& compute) {
    arrays_ = &arrays;
    timing_ = &timing;
    compute_ = &compute;
}

void ChunkScheduler::start(const std::vector<ChunkExtent>& extents) {
    extents_ = &extents;
    // Chunk i looks back at chunk i - depth (its slot) and i - staging_slots (its pinned
    // buffers), and the next chunk's upload comes before its own download.
    in_flight_.assign(std::max(slots_.size(), staging_slots_) + 2, InFlight{});
    unnudged_bytes_.assign(queues_.queues.size(), 0);
    unretired_.clear();
}

void ChunkScheduler::release_in_flight() {
    for (InFlight& chunk : in_flight_) chunk = InFlight{};
}

void ChunkScheduler::enqueue_chunks() {
    const std::size_t n = extents_->size();
    // Each chunk's upload is enqueued one step ahead of the previous chunk's compute and
    // download: with one copy queue (two queues) this lets upload i+1 run beside compute i
    // instead of queueing behind download i, which waits for compute i.
    if (n > 0) upload(0);
    for (std::size_t i = 0; i < n; ++i) {
        if (i + 1 < n) upload(i + 1);
        compute(i);
        download(i);
        if (recording_) continue;
        // The run's end on every queue that downloads, right after its last download: a point
        // recorded later, on a queue already idle, would read later than the work.
        const bool lanes = queues_.mode == PipelineMode::lanes;
        if (lanes ? i + queues_.queues.size() >= n : i + 1 == n)
            timing_->mark_end(queues_.download(i));
        retire_completed();
    }
}

void ChunkScheduler::run(const std::vector<ChunkExtent>& extents,
                         const std::function<void()>& meanwhile) {
    start(extents);
    try {
        enqueue_chunks();
        if (meanwhile) meanwhile();
        if (!extents.empty()) retire_through(extents.size() - 1);
        queues_.finish_all();
    } catch (...) {
        queues_.drain_quietly();
        unretired_.clear();
        release_in_flight();
        throw;
    }
    release_in_flight();
}

void ChunkScheduler::record(const std::vector<ChunkExtent>& extents) {
    start(extents);
    recording_ = true;
    try {
        enqueue_chunks();  // nothing runs: on a failure there is nothing to drain
    } catch (...) {
        recording_ = false;
        release_in_flight();
        throw;
    }
    recording_ = false;
    release_in_flight();  // the recording's events, which a kept scheduler would hold on to
}

void ChunkScheduler::wait_on(Queue& queue, const Event& event) {
    if (recording_) record_own_wait(queue, event);  // the layout's, not the compute function's
    else queue.wait(event);
}

void ChunkScheduler::compute_only(const std::vector<ChunkExtent>& extents) {
    start(extents);
    for (std::size_t i = 0; i < extents.size(); ++i) call_compute(i, queues_.compute(i));
}

void ChunkScheduler::run(ChunkSource& source, std::vector<ChunkExtent>& extents) {
    extents.clear();
    extents_ = &extents;
    claimed_ = &extents;
    in_flight_.assign(std::max(slots_.size(), staging_slots_) + 2, InFlight{});
    unnudged_bytes_.assign(queues_.queues.size(), 0);
    unretired_.clear();
    keep_downloads_ = true;
    finished_ = 0;
    const bool lanes = queues_.mode == PipelineMode::lanes;
    // The end of the run on the lanes of the chunks before chunk `last`, the last one: their
    // last work is enqueued already, and likely still running.
    const auto mark_lane_ends = [&](std::size_t last) {
        if (!lanes) return;
        const std::size_t q = queues_.queues.size();
        for (std::size_t k = last + 1 > q ? last + 1 - q : 0; k < last; ++k)
            timing_->mark_end(queues_.download(k));
    };
    try {
        if (claim(source, 0, 0) == Claimed::taken) {
            upload(0);
            for (std::size_t i = 0;; ++i) {
                // As in run(extents), the next chunk's upload goes ahead of this one's compute,
                // if the source gives it without waiting for chunk i, which is not enqueued yet.
                Claimed next = claim(source, i + 1, i);
                if (next == Claimed::taken) upload(i + 1);
                if (next == Claimed::none) mark_lane_ends(i);
                compute(i);
                download(i);
                if (next == Claimed::later) {
                    next = claim(source, i + 1, i + 1);
                    if (next == Claimed::taken) upload(i + 1);
                    if (next != Claimed::taken) mark_lane_ends(i);
                }
                if (next != Claimed::taken) timing_->mark_end(queues_.download(i));
                retire_completed();
                if (next != Claimed::taken) break;
            }
            retire_through(extents.size() - 1);
        }
        queues_.finish_all();
    } catch (...) {
        queues_.drain_quietly();
        unretired_.clear();
        keep_downloads_ = false;
        throw;
    }
    keep_downloads_ = false;
}

ChunkScheduler::Claimed ChunkScheduler::claim(ChunkSource& source, std::size_t i,
                                              std::size_t enqueued) {
    // Room for chunk i: the chunk that used its slot before has finished.
    while (finished_ + slots_.size() <= i && finished_ < enqueued) finish_oldest(source);
    for (;;) {
        ChunkExtent chunk;
        switch (source.next(i - finished_, chunk)) {
        case ChunkSource::Answer::take:
            claimed_->push_back(chunk);
            return Claimed::taken;
        case ChunkSource::Answer::stop: return Claimed::none;
        case ChunkSource::Answer::wait:
            if (finished_ == i) return Claimed::none;  // nothing to wait for: a source's mistake
            if (finished_ == enqueued) return Claimed::later;
            finish_oldest(source);
            break;
        }
    }
}

void ChunkScheduler::finish_oldest(ChunkSource& source) {
    in_flight(finished_).downloaded.wait();
    source.finished((*claimed_)[finished_].count);
    ++finished_;
}

void ChunkScheduler::upload(std::size_t i) {
    const ChunkExtent& chunk = (*extents_)[i];
    const InputRange range = input_range(chunk, arrays_->halo, arrays_->count);
    const std::size_t depth = slots_.size();
    const DeviceSlot& slot = slots_[i % depth];
    Queue& queue = queues_.upload(i);
    // The slot's previous chunk must be downloaded before its buffers are overwritten; where
    // that download is on this queue (a lane, one copy queue) it is ahead already.
    if (i >= depth && backend_of(queues_.download(i - depth)) != backend_of(queue))
        wait_on(queue, in_flight(i - depth).downloaded);

    // Pageable inputs go into pinned buffers first, so the DMAs can follow one another.
    std::vector<const void*>& sources = sources_;
    sources.resize(arrays_->inputs.size());
    bool staged = false;
    for (std::size_t k = 0; k < arrays_->inputs.size(); ++k) {
        const HostSide& side = arrays_->inputs[k];
        const auto* source = static_cast<const unsigned char*>(side.data) +
                             range.first * side.elem_size;
        const auto& ring = input_staging_.ring(k);
        if (!ring.empty()) {
            // The pinned buffer's previous DMA has to have read it before the host refills it.
            if (!staged && i >= staging_slots_) in_flight(i - staging_slots_).uploaded.wait();
            unsigned char* pinned = ring[i % staging_slots_].data;
            copier_.copy(pinned, source, range.count * side.elem_size, PinnedSide::into);
            source = pinned;
            staged = true;
        }
        sources[k] = source;
    }
    timing_->begin_stage(i, after_upload, queue);
    // The uploads' end is kept only where something waits for it: a refill of its pinned
    // buffers, or a compute on another queue. An event still held when the queue's next command
    // is enqueued costs a marker there (a cuEventRecord on CUDA, about 8 us on NVIDIA's OpenCL),
    // so no copy's event is held past the next copy. The last one's own event serves, also in a
    // timed chunk: its after_upload point would do on CUDA, but on NVIDIA's OpenCL a timed point
    // ends only once every earlier command of the context has (guide.md), so a wait on it would
    // hold the compute, or the host's next refill, behind other chunks' computes and downloads.
    const bool waited_for = staged || backend_of(queues_.compute(i)) != backend_of(queue);
    backend::EventPtr last;
    for (std::size_t k = 0; k < arrays_->inputs.size(); ++k) {
        const BufferView& buffer = slot.inputs[k];
        const std::size_t bytes = range.count * arrays_->inputs[k].elem_size;
        last.reset();
        last = recording_ ? record_own_copy_to_device(queue, buffer, sources[k], bytes,
                                                      "Pipeline::run (recording for replay)")
                          : backend_of(queue)->copy_to_device(*backend_of(buffer),
                                                              buffer.offset_bytes(), sources[k],
                                                              bytes, Sync::async);
    }
    if (!waited_for) last.reset();
    in_flight(i).uploaded = waited_for ? Event(std::move(last)) : Event();
    timing_->end_stage(i, after_upload, queue);
}

void ChunkScheduler::compute(std::size_t i) {
    Queue& queue = queues_.compute(i);
    if (backend_of(queues_.upload(i)) != backend_of(queue)) wait_on(queue, in_flight(i).uploaded);
    timing_->begin_stage(i, after_compute, queue);
    call_compute(i, queue);
    // A download on another queue waits for the compute's end: an untimed mark (the compute
    // function's own events are not ours), also in a timed chunk, for the reason upload() gives.
    // A mark is the last enqueue's own event where the backend can: no timestamp, no new event
    // per chunk (a timed record() cost 2 us on CUDA and a flush on OpenCL, per chunk, in
    // three-queue mode). In a recording, the compute queue's latest recorded command (the
    // download also waits for the upload then: a compute function may have recorded nothing).
    const bool waited_for = backend_of(queues_.download(i)) != backend_of(queue);
    in_flight(i).computed = !waited_for  ? Event()
                            : recording_ ? latest_recorded(queue)
                                         : Event(backend_of(queue)->mark());
    timing_->end_stage(i, after_compute, queue);
}

void ChunkScheduler::call_compute(std::size_t i, Queue& queue) {
    const ChunkExtent& chunk = (*extents_)[i];
    const InputRange range = input_range(chunk, arrays_->halo, arrays_->count);
    const DeviceSlot& slot = slots_[i % slots_.size()];
    std::vector<BufferView>& inputs = input_views_;
    std::vector<BufferView>& outputs = output_views_;
    inputs.clear();
    outputs.clear();
    for (std::size_t k = 0; k < arrays_->inputs.size(); ++k)
        inputs.emplace_back(backend_of(slot.inputs[k]), slot.inputs[k].offset_bytes(),
                            range.count * arrays_->inputs[k].elem_size);
    for (std::size_t k = 0; k < arrays_->outputs.size(); ++k)
        outputs.emplace_back(backend_of(slot.outputs[k]), slot.outputs[k].offset_bytes(),
                             chunk.count * arrays_->outputs[k].elem_size);
    ChunkViews views;
    views.queue = &queue;
    views.inputs = inputs.data();
    views.outputs = outputs.data();
    views.index = i;
    views.offset = chunk.offset;
    views.count = chunk.count;
    views.halo_before = range.halo_before;
    views.halo_after = range.halo_after;
    views.row_width = arrays_->halo.row_width();
    EnqueueWatch watch(backend_of(queue)->device(), *backend_of(queue));
    (*compute_)(views);
    if (!watch.unordered().empty())
        raise_argument(
            "Pipeline::run",
            "the compute function of chunk " + std::to_string(i) + " enqueued " +
                watch.unordered() +
                " on another queue of the chunk's device, and chunk.queue did not wait for it: "
                "the chunk's download waits only for chunk.queue, so it could read the chunk "
                "before that work wrote it; expected the chunk's work on chunk.queue, or "
                "chunk.queue.wait(event) on an event recorded after it");
}

void ChunkScheduler::download(std::size_t i) {
    const ChunkExtent& chunk = (*extents_)[i];
    const DeviceSlot& slot = slots_[i % slots_.size()];
    Queue& queue = queues_.download(i);
    if (backend_of(queues_.compute(i)) != backend_of(queue)) {
        wait_on(queue, in_flight(i).computed);
        if (recording_ && backend_of(queues_.upload(i)) != backend_of(queue))
            wait_on(queue, in_flight(i).uploaded);
    }

    // As in upload(): the downloads' end is kept only where something waits for it (the
    // copy-out of staged outputs, the upload that reuses this slot from another queue, or a
    // source of chunks), as the last copy's own event, timed chunk or not, and no copy's event is
    // held past the next copy of the queue.
    const std::size_t depth = slots_.size();
    const bool reuse_waits = backend_of(queues_.upload(i + depth)) != backend_of(queue);
    bool staged = false;
    for (std::size_t k = 0; k < arrays_->outputs.size(); ++k)
        staged = staged || !output_staging_.ring(k).empty();
    const bool waited_for = staged || reuse_waits || keep_downloads_;
    backend::EventPtr last;
    bool retired_ahead = false;
    std::size_t bytes_moved = 0;
    timing_->begin_stage(i, after_download, queue);
    for (std::size_t k = 0; k < arrays_->outputs.size(); ++k) {
        const HostSide& side = arrays_->outputs[k];
        const std::size_t bytes = chunk.count * side.elem_size;
        void* destination = static_cast<unsigned char*>(side.data) + chunk.offset * side.elem_size;
        const auto& ring = output_staging_.ring(k);
        if (!ring.empty()) {
            // The pinned buffer must have been copied out to the host before it lands again.
            if (!retired_ahead && i >= staging_slots_) retire_through(i - staging_slots_);
            retired_ahead = true;
            destination = ring[i % staging_slots_].data;
        }
        const BufferView& buffer = slot.outputs[k];
        last.reset();
        last = recording_ ? record_own_copy_to_host(queue, destination, buffer, bytes,
                                                    "Pipeline::run (recording for replay)")
                          : backend_of(queue)->copy_to_host(destination, *backend_of(buffer),
                                                            buffer.offset_bytes(), bytes,
                                                            Sync::async);
        bytes_moved += bytes;
    }
    for (const HostSide& side : arrays_->inputs) bytes_moved += chunk.count * side.elem_size;
    if (!waited_for) last.reset();
    Event downloaded = waited_for ? Event(std::move(last)) : Event();
    timing_->end_stage(i, after_download, queue);
    if (queues_.mode == PipelineMode::lanes && !recording_) {
        const std::size_t lane = i % queues_.queues.size();
        unnudged_bytes_[lane] += bytes_moved;
        const bool first_on_lane = i < queues_.queues.size();
        if (first_on_lane || unnudged_bytes_[lane] >= nudge_bytes) {
            // Submitting never blocks, and needs no event (a poll would make a marker for one).
            backend_of(queue)->submit();
            unnudged_bytes_[lane] = 0;
        }
    }
    in_flight(i).downloaded = std::move(downloaded);
    if (staged) unretired_.push_back(i);
}

void ChunkScheduler::retire(std::size_t i) {
    in_flight(i).downloaded.wait();
    const ChunkExtent& chunk = (*extents_)[i];
    for (std::size_t k = 0; k < arrays_->outputs.size(); ++k) {
        const auto& ring = output_staging_.ring(k);
        if (ring.empty()) continue;
        const HostSide& side = arrays_->outputs[k];
        copier_.copy(
            static_cast<unsigned char*>(side.data) + chunk.offset * side.elem_size,
            ring[i % staging_slots_].data, chunk.count * side.elem_size, PinnedSide::out_of);
    }
}

void ChunkScheduler::retire_through(std::size_t through) {
    while (!unretired_.empty() && unretired_.front() <= through) {
        retire(unretired_.front());
        unretired_.pop_front();
    }
}

void ChunkScheduler::retire_completed() {
    while (!unretired_.empty() && in_flight(unretired_.front()).downloaded.is_complete()) {
        retire(unretired_.front());
        unretired_.pop_front();
    }
}

}  // namespace dualrt::detail
