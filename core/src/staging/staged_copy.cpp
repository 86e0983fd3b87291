#include "staging/staged_copy.hpp"

#include "staging/copy_profile.hpp"
#include "staging/staging_slots.hpp"
#include "support/parallel_copy.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <vector>

namespace dualrt::detail {

backend::EventPtr staged_write(const std::shared_ptr<backend::DeviceImpl>& device,
                               backend::QueueImpl& queue, backend::BufferImpl& dst,
                               std::size_t dst_offset, const void* src, std::size_t bytes,
                               Sync sync) {
    CopyProfile profile;  // from here: lending the buffers may pin new ones
    StagingPool& pool = StagingPool::of(device);
    if (!pool.enabled()) return nullptr;
    LentSlots lent(pool, profile.lend([&] { return pool.acquire(staging_slots_for(bytes)); }));
    if (lent.size() == 0) {
        pool.count_pageable_fallback();
        return nullptr;
    }
    const auto* source = static_cast<const unsigned char*>(src);
    const std::size_t piece = staging_piece(bytes, lent);
    ParallelCopier& copier = ParallelCopier::of(device.get());  // looked up once, not per piece
    // A piece copied into its buffer whose DMA is not enqueued yet. Its DMA is enqueued while
    // the copier's workers copy the next piece: an enqueue costs 2-3 us on CUDA and 10-18 on
    // NVIDIA's OpenCL (H200), which would otherwise stall the host's copies between pieces.
    struct Filled {
        std::size_t slot;
        std::size_t offset;
        std::size_t length;
    };
    std::optional<Filled> filled;
    backend::EventPtr last;
    const auto enqueue_filled = [&] {
        StagingSlot& slot = lent.slot(filled->slot);
        profile.enqueue([&] {
            last = queue.copy_to_device(dst, dst_offset + filled->offset, slot.data,
                                        filled->length, Sync::async);
        });
        lent.last_use(filled->slot) = last;
        filled.reset();
    };
    std::size_t done = 0, pieces = 0;
    for (; done < bytes; ++pieces) {
        const std::size_t i = pieces % lent.size();
        if (filled && filled->slot == i) enqueue_filled();  // one buffer: no overlap to be had
        if (lent.last_use(i))  // its previous DMA has read it
            profile.dma_wait([&] { lent.last_use(i)->wait(); });
        const std::size_t length = staging_piece_at(done, bytes, piece);
        PendingCopy copying = profile.host_copy([&] {
            return copier.start(lent.slot(i).data, source + done, length, PinnedSide::into);
        });
        if (filled) enqueue_filled();
        profile.host_copy([&] { copying.finish(); });
        filled = Filled{i, done, length};
        done += length;
    }
    enqueue_filled();
    pool.count_staged(bytes);
    profile.report("upload", bytes, pieces, piece, lent.size(),
                   copier.threads(PinnedSide::into));
    if (sync == Sync::blocking) last->wait();
    return last;
}

backend::EventPtr staged_read(const std::shared_ptr<backend::DeviceImpl>& device,
                              backend::QueueImpl& queue, void* dst, backend::BufferImpl& src,
                              std::size_t src_offset, std::size_t bytes, Sync /*sync*/) {
    CopyProfile profile;  // from here: lending the buffers may pin new ones
    StagingPool& pool = StagingPool::of(device);
    if (!pool.enabled()) return nullptr;
    LentSlots lent(pool, profile.lend([&] { return pool.acquire(staging_slots_for(bytes)); }));
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
    const std::size_t piece = staging_piece(bytes, lent);
    ParallelCopier& copier = ParallelCopier::of(device.get());  // looked up once, not per piece
    std::size_t enqueued = 0, pieces = 0;
    auto enqueue_into = [&](std::size_t i) {
        StagingSlot& slot = lent.slot(i);
        const std::size_t length = staging_piece_at(enqueued, bytes, piece);
        profile.enqueue([&] {
            lent.last_use(i) =
                queue.copy_to_host(slot.data, src, src_offset + enqueued, length, Sync::async);
        });
        in_flight.push_back(InFlight{i, enqueued, length});
        enqueued += length;
        ++pieces;
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
        profile.dma_wait([&] { last->wait(); });
        profile.host_copy([&] {
            copier.copy(destination + landed.offset, lent.slot(landed.slot).data, landed.length,
                        PinnedSide::out_of);
        });
        if (enqueued < bytes) enqueue_into(landed.slot);
    }
    pool.count_staged(bytes);
    profile.report("download", bytes, pieces, piece, lent.size(),
                   copier.threads(PinnedSide::out_of));
    return last;
}

}  // namespace dualrt::detail
