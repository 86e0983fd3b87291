// Broadcast and allreduce of device buffers. Every rank first agrees on what is moved (one small
// allreduce), so a disagreement throws on every rank instead of hanging one of them. Staged,
// pieces flow through a ring of pinned slots: the download of a later piece and the upload of an
// earlier one run while MPI works on the current one.
#include "comm_state.hpp"
#include "mpi_check.hpp"
#include "protocol.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace dualrt::mpi::detail {
namespace {

// Every rank's values of `mine`, as max and min: one MPI_MAX allreduce of the values and their
// negations.
void agree(CommState& comm, const char* operation, const std::vector<std::int64_t>& mine,
           const std::vector<const char*>& names, const ElementType& type, std::uint64_t bytes) {
    std::vector<std::int64_t> both;
    for (const auto value : mine) {
        both.push_back(value);
        both.push_back(-value);
    }
    DUALRT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, both.data(), static_cast<int>(both.size()),
                                   MPI_INT64_T, MPI_MAX, comm.headers),
                     std::string(operation) + ": comparing the ranks' arguments");
    std::string disagreement;
    for (std::size_t i = 0; i < mine.size(); ++i) {
        const std::int64_t high = both[2 * i], low = -both[2 * i + 1];
        if (high == low) continue;
        disagreement += std::string(disagreement.empty() ? "" : "; ") + names[i] + " ranges from " +
                        std::to_string(low) + " to " + std::to_string(high);
    }
    if (!disagreement.empty())
        raise(Errc::invalid_argument, operation,
              "the ranks disagree: " + disagreement + " (" + comm.describe_self() + " passed " +
                  describe(bytes, type.size, type.code) +
                  "); every rank must pass the same arguments");
}

// Bytes per piece: whole elements, for reductions.
std::size_t piece_bytes_for(const CommState& comm, const ElementType& type) {
    const std::size_t elements = std::max<std::size_t>(1, comm.options.piece_bytes / type.size);
    return elements * type.size;
}

struct Ring {
    std::vector<Slot> slots;
    std::vector<Event> busy;  // each slot's last device copy
};

Ring take_ring(CommState& comm, std::size_t pieces, std::size_t piece_bytes) {
    Ring ring;
    const std::size_t count = std::min(pieces, comm.options.pieces_in_flight);
    for (std::size_t i = 0; i < count; ++i) ring.slots.push_back(comm.slots.take(piece_bytes));
    ring.busy.resize(count);
    return ring;
}

// Blocking collectives return with the data in place: every slot's last copy done.
void wait_all(const Ring& ring) {
    for (const auto& event : ring.busy)
        if (event.valid()) event.wait();
}

void give_back(CommState& comm, Ring& ring) {
    for (std::size_t i = 0; i < ring.slots.size(); ++i)
        comm.slots.give_back(std::move(ring.slots[i]), ring.busy[i]);
}

MPI_Op op_of(ReduceOp op) {
    switch (op) {
    case ReduceOp::sum: return MPI_SUM;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    }
    return MPI_SUM;
}

}  // namespace

void broadcast(CommState& comm, const Queue& queue, const BufferView& buffer,
               const ElementType& type, int root) {
    const char* op = "dualrt::mpi::Communicator::broadcast";
    comm.check_rank(op, "root", root, 0);
    agree(comm, op,
          {static_cast<std::int64_t>(buffer.bytes()), static_cast<std::int64_t>(type.size),
           static_cast<std::int64_t>(type.code), root},
          {"bytes", "element size", "element type", "root"}, type, buffer.bytes());
    const Buffer<std::byte> bytes(buffer);
    const std::size_t piece_bytes = comm.options.piece_bytes;
    const std::size_t pieces = piece_count(bytes.bytes(), piece_bytes);
    const auto length = [&](std::size_t p) {
        return std::min(piece_bytes, bytes.bytes() - p * piece_bytes);
    };
    const std::string context = "broadcast of " + std::to_string(bytes.bytes()) +
                                " bytes from rank " + std::to_string(root);
    Queue user = queue;
    const Event after = user.mark();
    if (comm.transport == Transport::gpu_aware) {
        after.wait();
        for (std::size_t p = 0; p < pieces; ++p)
            DUALRT_MPI_CHECK(MPI_Bcast(device_address(bytes, p * piece_bytes),
                                       static_cast<int>(length(p)), MPI_BYTE, root, comm.headers),
                             context);
        return;
    }
    Ring ring = take_ring(comm, pieces, piece_bytes);
    const bool is_root = comm.rank == root;
    Queue& copies = is_root ? comm.downloads : comm.uploads;
    copies.wait(after);
    const auto download = [&](std::size_t p) {
        const std::size_t slot = p % ring.slots.size();
        ring.busy[slot] = copies.copy(ring.slots[slot].view(0, length(p)),
                                      bytes.view(p * piece_bytes, length(p)));
    };
    if (is_root)
        for (std::size_t p = 0; p < ring.slots.size(); ++p) download(p);
    try {
        for (std::size_t p = 0; p < pieces; ++p) {
            const std::size_t slot = p % ring.slots.size();
            if (ring.busy[slot].valid()) ring.busy[slot].wait();  // downloaded, or uploaded before
            DUALRT_MPI_CHECK(MPI_Bcast(ring.slots[slot].data(), static_cast<int>(length(p)),
                                       MPI_BYTE, root, comm.headers),
                             context);
            if (is_root) {
                if (p + ring.slots.size() < pieces) download(p + ring.slots.size());
            } else {
                ring.busy[slot] = copies.copy(bytes.view(p * piece_bytes, length(p)),
                                              ring.slots[slot].view(0, length(p)));
            }
        }
        wait_all(ring);
    } catch (...) {
        copies.finish();  // no copy may still use a slot that goes back
        give_back(comm, ring);
        throw;
    }
    give_back(comm, ring);
}

void allreduce(CommState& comm, const Queue& queue, const BufferView& buffer,
               const ElementType& type, ReduceOp reduce) {
    const char* op = "dualrt::mpi::Communicator::allreduce";
    agree(comm, op,
          {static_cast<std::int64_t>(buffer.bytes()), static_cast<std::int64_t>(type.size),
           static_cast<std::int64_t>(type.code), static_cast<std::int64_t>(reduce)},
          {"bytes", "element size", "element type", "operation"}, type, buffer.bytes());
    const Buffer<std::byte> bytes(buffer);
    const std::size_t piece_bytes = piece_bytes_for(comm, type);
    const std::size_t pieces = piece_count(bytes.bytes(), piece_bytes);
    const auto length = [&](std::size_t p) {
        return std::min(piece_bytes, bytes.bytes() - p * piece_bytes);
    };
    const std::string context = "allreduce (" + std::string(to_string(reduce)) + ") of " +
                                std::to_string(bytes.bytes()) + " bytes";
    Queue user = queue;
    const Event after = user.mark();
    if (comm.transport == Transport::gpu_aware) {
        after.wait();
        for (std::size_t p = 0; p < pieces; ++p)
            DUALRT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, device_address(bytes, p * piece_bytes),
                                           static_cast<int>(length(p) / type.size),
                                           type.datatype, op_of(reduce), comm.headers),
                             context);
        return;
    }
    Ring ring = take_ring(comm, pieces, piece_bytes);
    std::vector<Event> downloaded(ring.slots.size());
    comm.downloads.wait(after);
    const auto download = [&](std::size_t p) {
        const std::size_t slot = p % ring.slots.size();
        // The slot's previous piece must be uploaded before this one overwrites it.
        if (ring.busy[slot].valid()) comm.downloads.wait(ring.busy[slot]);
        downloaded[slot] = comm.downloads.copy(ring.slots[slot].view(0, length(p)),
                                               bytes.view(p * piece_bytes, length(p)));
    };
    for (std::size_t p = 0; p < ring.slots.size(); ++p) download(p);
    try {
        for (std::size_t p = 0; p < pieces; ++p) {
            const std::size_t slot = p % ring.slots.size();
            downloaded[slot].wait();
            DUALRT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, ring.slots[slot].data(),
                                           static_cast<int>(length(p) / type.size),
                                           type.datatype, op_of(reduce), comm.headers),
                             context);
            ring.busy[slot] = comm.uploads.copy(bytes.view(p * piece_bytes, length(p)),
                                                ring.slots[slot].view(0, length(p)));
            if (p + ring.slots.size() < pieces) download(p + ring.slots.size());
        }
        wait_all(ring);
    } catch (...) {
        comm.downloads.finish();
        comm.uploads.finish();
        give_back(comm, ring);
        throw;
    }
    give_back(comm, ring);
}

}  // namespace dualrt::mpi::detail
