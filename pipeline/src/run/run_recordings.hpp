// The recorded work of a Pipeline's runs (PipelineOptions::replay): every chunk's upload, compute
// and download on every lane, in one recording, recorded once over a layout and replayed by the
// runs after it over the same layout, so that a run's commands cost the host one replay (on CUDA
// one graph launch) instead of an enqueue each. Internal.
#pragma once

#include <dualrt/pipeline.hpp>
#include <dualrt/recording.hpp>

#include "run/chunk_buffers.hpp"
#include "run/chunk_extents.hpp"
#include "run/chunk_scheduler.hpp"
#include "runtime/queue_recording.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dualrt::detail {

// Why a run over `arrays` with `timing`, on a device that records by `path`, cannot replay; ""
// where it can. `replay`: PipelineOptions::replay.
const char* replay_refusal(bool replay, PipelineTiming timing, const RunArrays& arrays,
                           RecordingPath path);

// What a run's recorded commands name: the host arrays (addresses, sizes), the chunks and halo,
// and the queues and device buffers (the chunks' views) they run on. A run replays a recording
// of its own layout.
struct ReplayLayout {
    std::vector<std::pair<const void*, std::size_t>> arrays;
    std::vector<std::size_t> chunks;
    std::size_t halo_before = 0, halo_after = 0, row_width = 0;
    std::vector<const void*> queues;
    std::vector<const backend::BufferImpl*> buffers;
    std::vector<std::size_t> buffer_offsets;
    bool operator==(const ReplayLayout& other) const {
        return arrays == other.arrays && chunks == other.chunks &&
               halo_before == other.halo_before && halo_after == other.halo_after &&
               row_width == other.row_width && queues == other.queues &&
               buffers == other.buffers && buffer_offsets == other.buffer_offsets;
    }
    bool operator!=(const ReplayLayout& other) const { return !(*this == other); }
};
ReplayLayout replay_layout(const RunArrays& arrays, const std::vector<ChunkExtent>& extents,
                           const PipelineQueues& queues, const DeviceSlots& slots);

// Whether some output array shares host memory with some input array (a run that writes its
// outputs changes what it reads).
bool outputs_overlap_inputs(const RunArrays& arrays);

class RunRecordings {
public:
    // Whether the recording holds a run of `layout`.
    bool holds(const ReplayLayout& layout) const { return recording_.valid() && layout_ == layout; }
    // Records the run `scheduler` makes over `extents` on `queues` (lane k on queues[k]) as the
    // recording of `layout`, into the one held where there is one (updated in place where the
    // backend can). Nothing runs. Throws Errc::invalid_argument naming what the compute function
    // enqueued that a recording cannot hold; the recording is then gone.
    void record(PipelineQueues& queues, ChunkScheduler& scheduler,
                const std::vector<ChunkExtent>& extents, const ReplayLayout& layout);
    // Whether the compute function's recorded commands write nothing but the chunks' device
    // buffers: a replay then changes only what a run writes anyway.
    bool confined() const { return !writes_elsewhere(recording_); }
    // Whether the compute function, called for every chunk of `extents` by `scheduler` with
    // nothing reaching the driver, enqueues what the recording holds (by digest).
    bool matches(PipelineQueues& queues, ChunkScheduler& scheduler,
                 const std::vector<ChunkExtent>& extents) const;
    // Replays the recording on `queue` (of the recording's device); its Event is the run's end.
    Event replay(Queue& queue);
    // Replays of the recording so far, and whether its latest recording updated the one before
    // in place.
    std::size_t replays() const { return replays_; }
    bool updated_in_place() const { return recording_.updated_in_place(); }

private:
    Recording recording_;
    ReplayLayout layout_;
    std::size_t replays_ = 0;
};

}  // namespace dualrt::detail
