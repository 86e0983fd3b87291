#include "slot_cache.hpp"

namespace dualrt::mpi::detail {

Slot SlotCache::take(std::size_t bytes) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->slot.size() < bytes) continue;
        if (it->busy_until.valid() && !it->busy_until.is_complete()) continue;
        Slot slot = std::move(it->slot);
        entries_.erase(it);
        return slot;
    }
    Slot slot = device_.alloc_host<std::byte>(bytes);
    pinned_bytes_ += bytes;
    return slot;
}

void SlotCache::give_back(Slot slot, Event busy_until) {
    entries_.push_back({std::move(slot), std::move(busy_until)});
}

}  // namespace dualrt::mpi::detail
