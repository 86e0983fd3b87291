#include "run/run_recordings.hpp"

#include "backend/backend_access.hpp"
#include "support/raise.hpp"

namespace dualrt::detail {
namespace {

constexpr const char* operation = "Pipeline::run (PipelineOptions::replay)";

// A refusal while the compute function enqueued into a recording or a digest (invalid_argument),
// said to be the replay's; other errors pass as they are.
[[noreturn]] void rethrow_as_replay(const Error& error) {
    if (error.errc() != Errc::invalid_argument) throw;
    raise_argument(operation, std::string("while recording the run for replay: ") + error.what() +
                                  "; a replayable compute function enqueues only copies, fills "
                                  "and launches on chunk.queue");
}

}  // namespace

const char* replay_refusal(bool replay, PipelineTiming timing, const RunArrays& arrays,
                           RecordingPath path) {
    if (!replay) return "PipelineOptions::replay is off";
    if (timing == PipelineTiming::every_chunk)
        return "PipelineTiming::every_chunk times every chunk's stages, which a replay cannot";
    if (any_staged(arrays))
        return "an array is pageable memory, which the host stages at every run; replays need "
               "every array pinned (HostBuffer or registered memory)";
    switch (path) {
    case RecordingPath::graph:
    case RecordingPath::command_buffer: return "";
    case RecordingPath::command_list:
        return "the device records into a command list (DeviceInfo::recording), whose replay "
               "runs every lane's commands on one queue, one lane after another";
    case RecordingPath::none: break;
    }
    return "the device cannot record (DeviceInfo::recording is none)";
}

ReplayLayout replay_layout(const RunArrays& arrays, const std::vector<ChunkExtent>& extents,
                           const PipelineQueues& queues, const DeviceSlots& slots) {
    ReplayLayout layout;
    for (const auto* side : {&arrays.inputs, &arrays.outputs})
        for (const HostSide& array : *side)
            layout.arrays.emplace_back(array.data, array.elements * array.elem_size);
    for (const ChunkExtent& extent : extents) layout.chunks.push_back(extent.count);
    layout.halo_before = arrays.halo.before();
    layout.halo_after = arrays.halo.after();
    layout.row_width = arrays.halo.row_width();
    for (const Queue& queue : queues.queues) layout.queues.push_back(backend_of(queue).get());
    for (std::size_t i = 0; i < slots.size(); ++i)
        for (const auto* side : {&slots[i].inputs, &slots[i].outputs})
            for (const BufferView& buffer : *side) {
                layout.buffers.push_back(backend_of(buffer).get());
                layout.buffer_offsets.push_back(buffer.offset_bytes());
            }
    return layout;
}

bool outputs_overlap_inputs(const RunArrays& arrays) {
    for (const HostSide& out : arrays.outputs)
        for (const HostSide& in : arrays.inputs) {
            const auto* o = static_cast<const unsigned char*>(out.data);
            const auto* i = static_cast<const unsigned char*>(in.data);
            if (o < i + in.elements * in.elem_size && i < o + out.elements * out.elem_size)
                return true;
        }
    return false;
}

void RunRecordings::record(PipelineQueues& queues, ChunkScheduler& scheduler,
                           const std::vector<ChunkExtent>& extents, const ReplayLayout& layout) {
    std::vector<Queue>& lanes = queues.queues;
    layout_ = ReplayLayout{};  // nothing held until the recording ends whole
    const auto abandon = [&]() noexcept {
        recording_ = Recording();
        try {
            if (lanes.front().recording()) lanes.front().end_recording();  // on every lane
        } catch (const Error&) {
            // Nothing was recorded: the recording is over all the same.
        }
    };
    lanes.front().begin_recording();
    try {
        for (std::size_t lane = 1; lane < lanes.size(); ++lane)
            lanes[lane].begin_recording(lanes.front());
        confine_writes(lanes.front(), layout.buffers);  // the chunks' own device buffers
        scheduler.record(extents);
        if (recording_.valid()) lanes.front().end_recording(recording_);
        else recording_ = lanes.front().end_recording();
    } catch (const Error& error) {
        abandon();
        rethrow_as_replay(error);
    } catch (...) {
        abandon();
        throw;
    }
    layout_ = layout;
    replays_ = 0;
}

bool RunRecordings::matches(PipelineQueues& queues, ChunkScheduler& scheduler,
                            const std::vector<ChunkExtent>& extents) const {
    begin_digest(queues.queues);
    std::uint64_t digest = 0;
    try {
        scheduler.compute_only(extents);
        digest = end_digest(queues.queues);
    } catch (const Error& error) {
        end_digest(queues.queues);
        rethrow_as_replay(error);
    } catch (...) {
        end_digest(queues.queues);
        throw;
    }
    return digest == digest_of(recording_);
}

Event RunRecordings::replay(Queue& queue) {
    Event end = queue.replay(recording_);
    ++replays_;
    return end;
}

}  // namespace dualrt::detail
