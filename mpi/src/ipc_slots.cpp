#include "ipc_slots.hpp"

#include "agreement.hpp"
#include "mpi_check.hpp"

#include <dualrt/error.hpp>
#include <dualrt/shared_memory.hpp>

#include <unistd.h>

namespace dualrt::mpi::detail {

IpcSlots::IpcSlots(Device device, std::size_t slot_bytes, std::size_t per_rank)
    : device_(std::move(device)), slot_bytes_(slot_bytes), per_rank_(per_rank) {}

std::string IpcSlots::open(MPI_Comm comm, int rank, int size, const std::string& self) {
    rank_ = rank;
    if (std::string why = links_.open(comm, rank, size, self); !why.empty()) return why;
    // Every rank makes its first slot for each other rank (and sends its descriptor) before any
    // rank imports, so an import never waits for a slot that a failed rank will not make.
    std::string problem;
    try {
        for (int peer = 0; peer < size; ++peer)
            if (peer != rank) make(peer);
    } catch (const Error& e) {
        problem = e.what();
    }
    const char* step = "sharing the first IPC slots";
    if (std::string why = first_problem(comm, rank, self, problem, step); !why.empty()) return why;
    try {
        for (int peer = 0; peer < size; ++peer)
            if (peer != rank) imported(peer, 0, slot_bytes_);
    } catch (const Error& e) {
        problem = e.what();
    }
    return first_problem(comm, rank, self, problem, step);
}

IpcSlot& IpcSlots::make(int peer) {
    auto exported = alloc_exported<std::byte>(device_, slot_bytes_);
    auto slot = std::make_unique<IpcSlot>();
    slot->memory = std::move(exported.buffer);
    slot->id = own_[peer].size();  // ids count per destination: the first slot is 0 everywhere
    try {
        if (peer != rank_) links_.send(peer, slot->id, exported.fd);
    } catch (...) {
        close(exported.fd);
        throw;
    }
    close(exported.fd);
    own_[peer].push_back(std::move(slot));
    return *own_[peer].back();
}

IpcSlot* IpcSlots::take(int peer) {
    auto& slots = own_[peer];
    for (auto& slot : slots)
        if (!slot->in_use) {
            slot->in_use = true;
            return slot.get();
        }
    if (!may_grow_ || slots.size() >= per_rank_) return nullptr;
    try {
        IpcSlot& made = make(peer);
        made.in_use = true;
        return &made;
    } catch (const Error& e) {
        // No room for another slot: the transfers share those there are.
        if (e.errc() != Errc::out_of_memory) throw;
        may_grow_ = false;
        return nullptr;
    }
}

const Buffer<std::byte>& IpcSlots::imported(int peer, std::uint64_t id, std::uint64_t bytes) {
    if (peer == rank_) {  // a send to this rank itself: its own slot, no import
        const auto& own = own_[peer];
        if (id >= own.size())
            raise(Errc::backend_failure, "dualrt::mpi::Communicator::recv",
                  "this rank has no shared slot " + std::to_string(id) + " of its own");
        return own[id]->memory;
    }
    const auto key = std::make_pair(peer, id);
    if (const auto found = imported_.find(key); found != imported_.end()) return found->second;
    const int fd = links_.receive(peer, id);
    return imported_.emplace(key, import_exported<std::byte>(device_, fd, bytes)).first->second;
}

}  // namespace dualrt::mpi::detail
