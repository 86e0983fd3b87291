#include "run/run_recordings.hpp"

#include "runtime/queue_recording.hpp"
#include "support/raise.hpp"

#include <algorithm>

namespace dualrt::detail {

std::string cannot_replay(const PipelineOptions& options, PipelineMode mode,
                          const RunArrays& arrays, const Device& device) {
    if (!options.replay) return "PipelineOptions::replay is off";
    if (mode != PipelineMode::lanes)
        return std::string("it runs on ") + to_string(mode) +
               ", whose chunks wait for one another across queues; replays run on lanes";
    if (any_staged(arrays))
        return "an array is pageable memory, staged through the host at every run; replays need "
               "HostBuffers or registered memory";
    if (device.info().recording == RecordingPath::none)
        return "the device cannot record (DeviceInfo::recording is none)";
    return {};
}

RunRecordings::Layout RunRecordings::layout_of(const RunArrays& arrays,
                                               const std::vector<ChunkExtent>& extents,
                                               std::size_t lanes) {
    Layout layout;
    for (const auto* side : {&arrays.inputs, &arrays.outputs})
        for (const HostSide& array : *side)
            layout.arrays.emplace_back(array.data, array.elements * array.elem_size);
    layout.arrays.emplace_back(nullptr, arrays.halo.before());
    layout.arrays.emplace_back(nullptr, arrays.halo.after());
    for (const ChunkExtent& extent : extents) layout.chunks.push_back(extent.count);
    layout.lanes = lanes;
    return layout;
}

bool RunRecordings::hold(const RunArrays& arrays, const std::vector<ChunkExtent>& extents,
                         std::size_t lanes) const {
    return !lanes_.empty() && layout_ == layout_of(arrays, extents, lanes);
}

void RunRecordings::record(PipelineQueues& queues, const RunArrays& arrays,
                           const std::vector<ChunkExtent>& extents,
                           const std::function<void()>& enqueue) {
    lanes_.clear();
    runs_ = 0;
    // Chunk i goes to lane i % lanes: with fewer chunks than lanes, the last lanes get none.
    const std::size_t used = std::min(extents.size(), queues.queues.size());
    for (std::size_t lane = 0; lane < used; ++lane) queues.queues[lane].begin_recording();
    std::vector<Recording> recorded;
    try {
        enqueue();
        for (std::size_t lane = 0; lane < used; ++lane)
            recorded.push_back(queues.queues[lane].end_recording());
    } catch (const Error& error) {
        for (Queue& queue : queues.queues) {
            if (!queue.recording()) continue;
            try {
                queue.end_recording();
            } catch (const Error&) {
                // Nothing recorded on this lane: the recording is over all the same.
            }
        }
        raise_argument("Pipeline::run (PipelineOptions::replay)",
                       std::string("recording the run failed, so it cannot be replayed; the "
                                   "compute function must enqueue only copies, fills and "
                                   "launches on chunk.queue: ") +
                           error.what());
    }
    lanes_ = std::move(recorded);
    layout_ = layout_of(arrays, extents, queues.queues.size());
}

bool RunRecordings::match(PipelineQueues& queues, const std::function<void()>& enqueue) const {
    for (std::size_t lane = 0; lane < lanes_.size(); ++lane)
        begin_fingerprint(queues.queues[lane]);
    try {
        enqueue();
    } catch (...) {
        for (std::size_t lane = 0; lane < lanes_.size(); ++lane)
            end_fingerprint(queues.queues[lane]);
        throw;
    }
    bool same = true;
    for (std::size_t lane = 0; lane < lanes_.size(); ++lane)
        same = end_fingerprint(queues.queues[lane]) == recorded_fingerprint(lanes_[lane]) && same;
    return same;
}

void RunRecordings::replay(PipelineQueues& queues) const {
    for (std::size_t lane = 0; lane < lanes_.size(); ++lane)
        queues.queues[lane].replay(lanes_[lane]);
    ++runs_;
}

}  // namespace dualrt::detail
