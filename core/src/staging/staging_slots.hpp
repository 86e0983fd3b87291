// The pool's buffers lent to one staged copy, and how a copy is cut into pieces over them: shared
// by the copies between host and device (staged_copy.cpp) and between devices (cross_device.cpp).
// Internal.
#pragma once

#include "staging/staging_pool.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dualrt::detail {

// Buffers in flight per copy: one filling on the host while the others drain.
inline constexpr std::size_t slots_per_copy = 4;
// The smallest piece a copy is cut into: smaller ones cost more in enqueues and events (5-10 us
// each on NVIDIA's OpenCL) than they overlap, and each piece's host copy is itself spread over
// the copier's threads, which pays from a few hundred KiB.
inline constexpr std::size_t min_staging_piece_bytes = 512u << 10;

// The pool's buffers lent to one copy, each with the last device work that uses it. They go
// back to the pool when the copy ends, however it ends (the pool waits for that work before
// lending them again).
class LentSlots {
public:
    LentSlots(StagingPool& pool, std::vector<StagingSlot> slots)
        : pool_(pool), slots_(std::move(slots)), last_use_(slots_.size()) {}
    ~LentSlots() {
        for (std::size_t i = 0; i < slots_.size(); ++i)
            pool_.release(std::move(slots_[i]), std::move(last_use_[i]));
    }
    LentSlots(const LentSlots&) = delete;
    LentSlots& operator=(const LentSlots&) = delete;

    std::size_t size() const { return slots_.size(); }
    StagingSlot& slot(std::size_t i) { return slots_[i]; }
    const StagingSlot& slot(std::size_t i) const { return slots_[i]; }
    backend::EventPtr& last_use(std::size_t i) { return last_use_[i]; }

private:
    StagingPool& pool_;
    std::vector<StagingSlot> slots_;
    std::vector<backend::EventPtr> last_use_;
};

// How many buffers a copy of `bytes` borrows: small copies are cut into pieces
// (staging_piece), so they too use several.
inline std::size_t staging_slots_for(std::size_t bytes) {
    return std::min(slots_per_copy,
                    (bytes + min_staging_piece_bytes - 1) / min_staging_piece_bytes);
}

// The bytes each DMA moves: a whole staging buffer for large copies, but a copy of a few
// buffers' worth or less is cut into pieces so that at least `slots_per_copy` of them overlap
// (a 4 MiB copy in one 8 MiB buffer would otherwise be a memcpy followed by a DMA).
inline std::size_t staging_piece(std::size_t bytes, const LentSlots& lent) {
    std::size_t smallest = lent.slot(0).bytes;
    for (std::size_t i = 1; i < lent.size(); ++i) smallest = std::min(smallest, lent.slot(i).bytes);
    const std::size_t quarter =
        ((bytes + slots_per_copy - 1) / slots_per_copy + 63) & ~std::size_t{63};
    return std::min(smallest, std::max(min_staging_piece_bytes, quarter));
}

// The length of the piece that starts `done` bytes into a copy of `bytes` whose pieces are at
// most `piece` (staging_piece). Pieces ramp up from an eighth of `piece` at the start and down
// to it at the end (1, 2, 4, 8, 8, ..., 8, 4, 2, 1 MiB for 8 MiB pieces): what cannot overlap
// is the first piece's first stage (the download, or the host copy) and the last piece's last
// one, and small end pieces shorten both, while the full pieces in the middle keep the per-piece
// cost (an enqueue, an event, a thread hand-off) low. No piece is under the staging minimum, and
// none but the last is cut below 64-byte alignment.
inline std::size_t staging_piece_at(std::size_t done, std::size_t bytes, std::size_t piece) {
    const std::size_t left = bytes - done;
    const std::size_t smallest = std::min(piece, std::max(min_staging_piece_bytes, piece / 8));
    // Ramp up: s, 2s, 4s, ... start at 0, s, 3s, 7s, so each is `done + s` long.
    std::size_t length = std::min(piece, done + smallest);
    // Ramp down: about half of what is left, so that ..., 4s, 2s, s remain.
    length = std::min(length, std::max(smallest, (left + smallest) / 2));
    length &= ~std::size_t{63};
    // A remainder under a quarter of the smallest piece rides along where the buffer has room.
    if (length >= left || (left - length < smallest / 4 && left <= piece)) return left;
    return std::max<std::size_t>(length, 64);
}

}  // namespace dualrt::detail
