// Pinned host buffers for staged transfers, kept between transfers: pinning costs milliseconds,
// a transfer of a halo row microseconds. A slot comes back with the Event of its last device copy
// and is lent again only once that copy has completed.
#pragma once

#include <dualrt/device.hpp>
#include <dualrt/event.hpp>
#include <dualrt/host_buffer.hpp>

#include <cstddef>
#include <vector>

namespace dualrt::mpi::detail {

using Slot = HostBuffer<std::byte>;

class SlotCache {
public:
    explicit SlotCache(Device device) : device_(std::move(device)) {}

    // A slot of at least `bytes` whose last copy has completed; a new one when none is free.
    // Never waits for a busy slot: two transfers that each wait for the other's slots to free up
    // would never finish.
    Slot take(std::size_t bytes);
    // `slot` is free once `busy_until` (may be empty) has completed.
    void give_back(Slot slot, Event busy_until);
    std::size_t pinned_bytes() const noexcept { return pinned_bytes_; }

private:
    struct Entry {
        Slot slot;
        Event busy_until;
    };
    Device device_;
    std::vector<Entry> entries_;
    std::size_t pinned_bytes_ = 0;
};

}  // namespace dualrt::mpi::detail
