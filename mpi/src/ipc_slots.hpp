// Device memory that the ranks of one machine share for the IPC transport. A sender copies a
// piece into one of its slots (exported memory, shared_memory.hpp), tells the receiver which slot
// by MPI, and the receiver copies it out of its import of that slot, then acknowledges. Slots
// belong to one destination rank, which imported each of them once: the descriptor goes over the
// IPC link (ipc_links.hpp) when the slot is made, before any message names it.
#pragma once

#include "ipc_links.hpp"

#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dualrt::mpi::detail {

struct IpcSlot {
    Buffer<std::byte> memory;
    std::uint64_t id = 0;  // the label the destination knows it by
    bool in_use = false;
};

// What tells the receiver where a piece is: MPI message on the pieces communicator.
struct IpcToken {
    std::uint64_t slot = 0;
    std::uint64_t slot_bytes = 0;
    std::uint64_t piece = 0;
    std::uint64_t reserved = 0;
};

// What the receiver answers once the piece is copied out (or could not be): replies communicator.
struct IpcAck {
    std::uint64_t piece = 0;
    std::uint64_t failed = 0;  // 1: `problem` says why the receiver could not take the piece
    char problem[496] = {};
};
static_assert(sizeof(IpcAck) == 512, "the acknowledgement is 512 bytes on every rank");

class IpcSlots {
public:
    // `slot_bytes`: the size of every slot (the largest piece); `per_rank`: how many slots for
    // one destination at most.
    IpcSlots(Device device, std::size_t slot_bytes, std::size_t per_rank);

    // Collective over `comm`: opens the links, makes the first slot for every other rank and
    // imports every rank's first slot for this one, proving the path between every pair.
    // Returns "" when that worked on every rank, else the first failing rank's problem (named by
    // its `self`), on every rank.
    std::string open(MPI_Comm comm, int rank, int size, const std::string& self);

    std::size_t slot_bytes() const noexcept { return slot_bytes_; }
    // A free slot for sends to `peer`, marked in use; a new one (its descriptor sent to `peer`)
    // when none is free and fewer than `per_rank` exist; else null: the caller tries again once
    // an acknowledgement has freed one. Never waits.
    IpcSlot* take(int peer);
    void give_back(IpcSlot& slot) noexcept { slot.in_use = false; }
    // `peer`'s slot `id` as a buffer of this rank's device, imported on first use (this rank's
    // own slot where `peer` is this rank: a send to itself).
    const Buffer<std::byte>& imported(int peer, std::uint64_t id, std::uint64_t bytes);

private:
    IpcSlot& make(int peer);

    Device device_;
    std::size_t slot_bytes_, per_rank_;
    int rank_ = -1;
    IpcLinks links_;
    std::uint64_t next_id_ = 0;
    bool may_grow_ = true;  // false once the device had no room for another slot
    std::map<int, std::vector<std::unique_ptr<IpcSlot>>> own_;
    std::map<std::pair<int, std::uint64_t>, Buffer<std::byte>> imported_;
};

}  // namespace dualrt::mpi::detail
