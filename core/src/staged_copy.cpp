#include "staged_copy.hpp"

#include "parallel_copy.hpp"
#include "staging_pool.hpp"

#include <algorithm>
#include <deque>
#include <vector>

namespace dualrt::detail {
namespace {

// Buffers in flight per copy: one filling on the host while the others drain.
constexpr std::size_t slots_per_copy = 4;
// The smallest piece a copy is cut into: smaller ones cost more in enqueues and events (5-10 us
// each on NVIDIA's OpenCL) than they overlap, and each piece's host copy is itself spread over
// the copier's threads, which pays from a few hundred KiB.
constexpr std::size_t min_piece_bytes = 512u << 10;

// The pool's buffers lent to one copy, each with the last device work that uses it. They go
// back to the pool when the copy ends, however it ends (the pool waits for that work before
// lending them again).
class Lent {
public:
    Lent(StagingPool& pool, std::vector<StagingSlot> slots)
        : pool_(pool), slots_(std::move(slots)), last_use_(slots_.size()) {}
    ~Lent() {
        for (std::size_t i = 0; i < slots_.size(); ++i)
            pool_.release(std::move(slots_[i]), std::move(last_use_[i]));
    }
    Lent(const Lent&) = delete;
    Lent& operator=(const Lent&) = delete;

    std::size_t size() const { return slots_.size(); }
    StagingSlot& slot(std::size_t i) { return slots_[i]; }
    const StagingSlot& slot(std::size_t i) const { return slots_[i]; }
    backend::EventPtr& last_use(std::size_t i) { return last_use_[i]; }

private:
    StagingPool& pool_;
    std::vector<StagingSlot> slots_;
    std::vector<backend::EventPtr> last_use_;
};

std::size_t slots_for(std::size_t bytes) {
    // Small copies are cut into pieces (piece_for), so they too use several buffers.
    return std::min(slots_per_copy, (bytes + min_piece_bytes - 1) / min_piece_bytes);
}

// The bytes each DMA moves: a whole staging buffer for large copies, but a copy of a few
// buffers' worth or less is cut into pieces so that at least `slots_per_copy` of them overlap
// (a 4 MiB copy in one 8 MiB buffer would otherwise be a memcpy followed by a DMA).
std::size_t piece_for(std::size_t bytes, const Lent& lent) {
    std::size_t smallest = lent.slot(0).bytes;
    for (std::size_t i = 1; i < lent.size(); ++i) smallest = std::min(smallest, lent.slot(i).bytes);
    const std::size_t quarter = ((bytes + slots_per_copy - 1) / slots_per_copy + 63) & ~std::size_t{63};
    return std::min(smallest, std::max(min_piece_bytes, quarter));
}

}  // namespace

backend::EventPtr staged_write(const std::shared_ptr<backend::DeviceImpl>& device,
                               backend::QueueImpl& queue, backend::BufferImpl& dst,
                               std::size_t dst_offset, const void* src, std::size_t bytes,
                               Sync sync) {
    StagingPool& pool = StagingPool::of(device);
    if (!pool.enabled()) return nullptr;
    Lent lent(pool, pool.acquire(slots_for(bytes)));
    if (lent.size() == 0) {
        pool.count_pageable_fallback();
        return nullptr;
    }
    const auto* source = static_cast<const unsigned char*>(src);
    const std::size_t piece = piece_for(bytes, lent);
    backend::EventPtr last;
    std::size_t done = 0;
    for (std::size_t chunk = 0; done < bytes; ++chunk) {
        const std::size_t i = chunk % lent.size();
        StagingSlot& slot = lent.slot(i);
        if (lent.last_use(i)) lent.last_use(i)->wait();  // its previous DMA has read it
        const std::size_t length = std::min(piece, bytes - done);
        ParallelCopier::instance().copy(slot.data, source + done, length);
        last = queue.copy_to_device(dst, dst_offset + done, slot.data, length, Sync::async);
        lent.last_use(i) = last;
        done += length;
    }
    pool.count_staged(bytes);
    if (sync == Sync::blocking) last->wait();
    return last;
}

backend::EventPtr staged_read(const std::shared_ptr<backend::DeviceImpl>& device,
                              backend::QueueImpl& queue, void* dst, backend::BufferImpl& src,
                              std::size_t src_offset, std::size_t bytes, Sync /*sync*/) {
    StagingPool& pool = StagingPool::of(device);
    if (!pool.enabled()) return nullptr;
    Lent lent(pool, pool.acquire(slots_for(bytes)));
    if (lent.size() == 0) {
        pool.count_pageable_fallback();
        return nullptr;
    }
    struct InFlight {
        std::size_t slot;
        std::size_t offset;
        std::size_t length;
    };
    std::deque<InFlight> in_flight;
    const std::size_t piece = piece_for(bytes, lent);
    std::size_t enqueued = 0;
    auto enqueue_into = [&](std::size_t i) {
        StagingSlot& slot = lent.slot(i);
        const std::size_t length = std::min(piece, bytes - enqueued);
        lent.last_use(i) =
            queue.copy_to_host(slot.data, src, src_offset + enqueued, length, Sync::async);
        in_flight.push_back(InFlight{i, enqueued, length});
        enqueued += length;
    };
    // Every buffer starts a DMA; then each one, once landed, is copied out by the host while
    // the others' DMAs run, and starts the next chunk.
    for (std::size_t i = 0; i < lent.size() && enqueued < bytes; ++i) enqueue_into(i);
    auto* destination = static_cast<unsigned char*>(dst);
    backend::EventPtr last;
    while (!in_flight.empty()) {
        const InFlight landed = in_flight.front();
        in_flight.pop_front();
        last = lent.last_use(landed.slot);
        last->wait();
        ParallelCopier::instance().copy(destination + landed.offset, lent.slot(landed.slot).data,
                                        landed.length);
        if (enqueued < bytes) enqueue_into(landed.slot);
    }
    pool.count_staged(bytes);
    return last;
}

}  // namespace dualrt::detail
