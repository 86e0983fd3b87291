// The enqueue loop of a Pipeline: moves chunks through upload, compute and download with events
// between the stages, reusing a fixed set of device (and pinned host) buffers. Internal.
#pragma once

#include <dualrt/event.hpp>
#include <dualrt/pipeline.hpp>
#include <dualrt/queue.hpp>

#include "backend/backend.hpp"
#include "pipeline_plan.hpp"

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace dualrt::detail {

// Device time of one stage of one chunk: timed events around its work on its queue.
struct StageEvents {
    Event begin;
    Event end;
};

struct ChunkRecord {
    std::size_t index = 0;
    ChunkExtent extent;
    StageEvents upload, compute, download;
};

// A pipeline's queues. With two queues, `upload` and `download` are the same queue.
struct PipelineQueues {
    Queue upload, compute, download;
    bool shared_copy_queue() const { return upload.impl() == download.impl(); }
};

// The chunk buffers on the device; output is input for in-place pipelines.
struct DeviceSlot {
    BufferView input;
    BufferView output;
};

// Pinned host buffers that pageable host memory passes through, chunk by chunk.
struct HostSlot {
    std::shared_ptr<backend::HostBufferImpl> buffer;
    unsigned char* data = nullptr;
};

// One host side of a run (input or output), with its staging buffers when it is pageable.
struct HostEnd {
    unsigned char* data = nullptr;
    std::size_t elem_size = 0;
    std::vector<HostSlot> staging;  // empty: DMA straight from/to `data` (pinned, or no staging)
};

class ChunkScheduler {
public:
    ChunkScheduler(PipelineQueues& queues, std::vector<DeviceSlot>& device_slots, HostEnd& input,
                   HostEnd& output, const std::function<void(Pipeline::ChunkBytes&)>& compute);

    // Enqueues every chunk of `extents` (numbered from records.size() on) and appends its
    // record; returns when all of them are enqueued and, with `last` set, when staged outputs
    // are in host memory too (a later run() finishes the others). Waits for every enqueued
    // command before rethrowing, when anything throws.
    void run(const std::vector<ChunkExtent>& extents, std::vector<ChunkRecord>& records,
             bool last = true);

private:
    void upload(ChunkRecord& chunk, const std::vector<ChunkRecord>& records);
    void compute(ChunkRecord& chunk);
    void download(ChunkRecord& chunk, const std::vector<ChunkRecord>& records);
    // Copies landed staged outputs to the host, oldest first: all up to chunk `through`
    // (waiting for them), then any others already complete.
    void retire_through(std::size_t through, const std::vector<ChunkRecord>& records);
    void retire_completed(const std::vector<ChunkRecord>& records);
    void retire(const ChunkRecord& chunk);
    void drain() noexcept;

    PipelineQueues& queues_;
    std::vector<DeviceSlot>& device_slots_;
    HostEnd& input_;
    HostEnd& output_;
    const std::function<void(Pipeline::ChunkBytes&)>& compute_;
    std::deque<std::size_t> unretired_;  // indices of staged downloads not yet copied out
};

}  // namespace dualrt::detail
