#include "pipeline_schedule.hpp"

#include "parallel_copy.hpp"

namespace dualrt::detail {

ChunkScheduler::ChunkScheduler(PipelineQueues& queues, std::vector<DeviceSlot>& device_slots,
                               HostEnd& input, HostEnd& output,
                               const std::function<void(Pipeline::ChunkBytes&)>& compute)
    : queues_(queues), device_slots_(device_slots), input_(input), output_(output),
      compute_(compute) {}

void ChunkScheduler::run(const std::vector<ChunkExtent>& extents,
                         std::vector<ChunkRecord>& records, bool last) {
    // References into `records` stay valid below: nothing is added after this.
    records.reserve(records.size() + extents.size());
    const std::size_t first = records.size();
    for (const auto& extent : extents) {
        ChunkRecord record;
        record.index = records.size();
        record.extent = extent;
        records.push_back(std::move(record));
    }
    try {
        // Each chunk's upload is enqueued one step ahead of the previous chunk's download:
        // with one copy queue (two-queue mode) this lets upload i+1 run beside compute i
        // instead of queueing behind download i, which waits for compute i.
        if (first < records.size()) upload(records[first], records);
        for (std::size_t i = first; i < records.size(); ++i) {
            if (i + 1 < records.size()) upload(records[i + 1], records);
            compute(records[i]);
            download(records[i], records);
            retire_completed(records);
        }
        if (last && !records.empty()) retire_through(records.size() - 1, records);
    } catch (...) {
        drain();
        unretired_.clear();
        throw;
    }
}

void ChunkScheduler::upload(ChunkRecord& chunk, const std::vector<ChunkRecord>& records) {
    const std::size_t depth = device_slots_.size();
    const DeviceSlot& slot = device_slots_[chunk.index % depth];
    Queue& queue = queues_.upload;
    // The slot's previous chunk must be downloaded before its buffers are overwritten. One
    // shared copy queue already runs that download first.
    if (chunk.index >= depth && !queues_.shared_copy_queue())
        queue.wait(records[chunk.index - depth].download.end);

    const std::size_t bytes = chunk.extent.count * input_.elem_size;
    const unsigned char* source = input_.data + chunk.extent.offset * input_.elem_size;
    if (!input_.staging.empty()) {
        const std::size_t slots = input_.staging.size();
        const HostSlot& staging = input_.staging[chunk.index % slots];
        // The staging buffer's previous DMA has to have read it before the host refills it.
        if (chunk.index >= slots) records[chunk.index - slots].upload.end.wait();
        ParallelCopier::instance().copy(staging.data, source, bytes);
        source = staging.data;
    }
    chunk.upload.begin = queue.record();
    queue.impl()->copy_to_device(*slot.input.impl(), slot.input.offset_bytes(), source, bytes,
                                 Sync::async);
    chunk.upload.end = queue.record();
}

void ChunkScheduler::compute(ChunkRecord& chunk) {
    const DeviceSlot& slot = device_slots_[chunk.index % device_slots_.size()];
    Queue& queue = queues_.compute;
    queue.wait(chunk.upload.end);
    Pipeline::ChunkBytes bytes{
        &queue,
        BufferView(slot.input.impl(), slot.input.offset_bytes(),
                   chunk.extent.count * input_.elem_size),
        BufferView(slot.output.impl(), slot.output.offset_bytes(),
                   chunk.extent.count * output_.elem_size),
        chunk.index, chunk.extent.offset};
    chunk.compute.begin = queue.record();
    compute_(bytes);
    chunk.compute.end = queue.record();
}

void ChunkScheduler::download(ChunkRecord& chunk, const std::vector<ChunkRecord>& records) {
    const DeviceSlot& slot = device_slots_[chunk.index % device_slots_.size()];
    Queue& queue = queues_.download;
    queue.wait(chunk.compute.end);

    const std::size_t bytes = chunk.extent.count * output_.elem_size;
    unsigned char* destination = output_.data + chunk.extent.offset * output_.elem_size;
    const bool staged = !output_.staging.empty();
    if (staged) {
        const std::size_t slots = output_.staging.size();
        // The staging buffer must have been copied out to the host before it lands again.
        if (chunk.index >= slots) retire_through(chunk.index - slots, records);
        destination = output_.staging[chunk.index % slots].data;
    }
    chunk.download.begin = queue.record();
    queue.impl()->copy_to_host(destination, *slot.output.impl(), slot.output.offset_bytes(), bytes,
                               Sync::async);
    chunk.download.end = queue.record();
    if (staged) unretired_.push_back(chunk.index);
}

void ChunkScheduler::retire(const ChunkRecord& chunk) {
    chunk.download.end.wait();
    const std::size_t bytes = chunk.extent.count * output_.elem_size;
    const HostSlot& staging = output_.staging[chunk.index % output_.staging.size()];
    ParallelCopier::instance().copy(output_.data + chunk.extent.offset * output_.elem_size,
                                    staging.data, bytes);
}

void ChunkScheduler::retire_through(std::size_t through, const std::vector<ChunkRecord>& records) {
    while (!unretired_.empty() && unretired_.front() <= through) {
        retire(records[unretired_.front()]);
        unretired_.pop_front();
    }
}

void ChunkScheduler::retire_completed(const std::vector<ChunkRecord>& records) {
    while (!unretired_.empty() && records[unretired_.front()].download.end.is_complete()) {
        retire(records[unretired_.front()]);
        unretired_.pop_front();
    }
}

void ChunkScheduler::drain() noexcept {
    for (Queue* queue : {&queues_.upload, &queues_.compute, &queues_.download}) {
        try {
            queue->finish();
        } catch (...) {
            // The error being propagated is the one to report; this one follows from it or
            // will be seen again by the next call on the queue.
        }
    }
}

}  // namespace dualrt::detail
