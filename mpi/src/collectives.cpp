// Broadcast and allreduce of device buffers. Every rank first agrees on what is moved and learns
// whether any rank's own checks failed (agreement.hpp), so a mistake on one rank throws on every
// rank instead of hanging the others. Through NCCL, the operation is enqueued on the caller's
// queue (its CUDA stream) on the communicator of all ranks. Staged, pieces flow through a ring of
// pinned slots: the download of a later piece and the upload of an earlier one run while MPI
// works on the current one.
#include "agreement.hpp"
#include "comm_state.hpp"
#include "mpi_check.hpp"
#include "protocol.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace dualrt::mpi::detail {
namespace {

// The agreement step (agreement.hpp) of a collective over `buffer`: this rank's own checks, the
// values every rank must pass alike, and the piece size, which the ranks settle (the smallest any
// rank's options ask for), since their pieces must match one for one.
std::size_t agree_collective(CommState& comm, const char* operation, const Queue& queue,
                             const BufferView& buffer, const ElementType& type,
                             const std::function<void()>& more_checks,
                             std::vector<Agreed> values) {
    values.insert(values.begin(),
                  {{"bytes", static_cast<std::int64_t>(buffer.bytes())},
                   {"element size", static_cast<std::int64_t>(type.size)},
                   {"element type", static_cast<std::int64_t>(type.code)}});
    values.push_back({"piece size", static_cast<std::int64_t>(comm.options.piece_bytes),
                      Agreed::Rule::least});
    const auto settled = agree(
        comm.headers, operation, comm.describe_self(),
        [&] {
            comm.check_queue_and_buffer(operation, queue, buffer);
            more_checks();
        },
        values, describe(buffer.bytes(), type.size, type.code));
    // Whole elements per piece, for reductions.
    const std::size_t elements =
        std::max<std::size_t>(1, static_cast<std::size_t>(settled.back()) / type.size);
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

// The NCCL type of an element type code (type_code<T>()); false for one NCCL lacks (16-bit
// integers), which then takes the staged path.
bool nccl_type(std::uint64_t code, nccl::DataType& type) {
    switch (code) {
    case 1: type = nccl::int8; return true;
    case 2: type = nccl::uint8; return true;
    case 5: type = nccl::int32; return true;
    case 6: type = nccl::uint32; return true;
    case 7: type = nccl::int64; return true;
    case 8: type = nccl::uint64; return true;
    case 9: type = nccl::float32; return true;
    case 10: type = nccl::float64; return true;
    default: return false;
    }
}

nccl::RedOp nccl_op(ReduceOp op) {
    switch (op) {
    case ReduceOp::sum: return nccl::sum;
    case ReduceOp::min: return nccl::min;
    case ReduceOp::max: return nccl::max;
    }
    return nccl::sum;
}

// Runs `enqueue` (an NCCL collective on `queue`'s stream) and returns once NCCL has put it there:
// the queue's later work sees the result, and the host does not wait for the device.
template <typename Enqueue>
void run_nccl(CommState& comm, const Queue& queue, Enqueue&& enqueue) {
    Queue user = queue;
    NcclComm& all = *comm.nccl_all;
    all.wait_settled();
    enqueue(all, reinterpret_cast<nccl::Stream>(user.native_handle()));
    all.wait_settled();
    comm.last_collective = user.mark();
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
    const std::size_t piece_bytes = agree_collective(
        comm, op, queue, buffer, type, [&] { comm.check_rank(op, "root", root, 0); },
        {{"root", root}});
    const Buffer<std::byte> bytes(buffer);
    const std::size_t pieces = piece_count(bytes.bytes(), piece_bytes);
    const auto length = [&](std::size_t p) {
        return std::min(piece_bytes, bytes.bytes() - p * piece_bytes);
    };
    const std::string context = "broadcast of " + std::to_string(bytes.bytes()) +
                                " bytes from rank " + std::to_string(root);
    if (comm.transport == Transport::nccl) {
        run_nccl(comm, queue, [&](NcclComm& all, nccl::Stream stream) {
            all.broadcast(bytes, root, stream);
        });
        return;
    }
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
    const std::size_t piece_bytes = agree_collective(
        comm, op, queue, buffer, type,
        [&] {
            if (reduce != ReduceOp::sum && reduce != ReduceOp::min && reduce != ReduceOp::max)
                raise(Errc::invalid_argument, op,
                      "ReduceOp " + std::to_string(static_cast<int>(reduce)) +
                          " is not one of sum, min and max");
        },
        {{"operation", static_cast<std::int64_t>(reduce)}});
    const Buffer<std::byte> bytes(buffer);
    const std::size_t pieces = piece_count(bytes.bytes(), piece_bytes);
    const auto length = [&](std::size_t p) {
        return std::min(piece_bytes, bytes.bytes() - p * piece_bytes);
    };
    const std::string context = "allreduce (" + std::string(to_string(reduce)) + ") of " +
                                std::to_string(bytes.bytes()) + " bytes";
    nccl::DataType nccl_element{};
    if (comm.transport == Transport::nccl && nccl_type(type.code, nccl_element)) {
        run_nccl(comm, queue, [&](NcclComm& all, nccl::Stream stream) {
            all.all_reduce(bytes, nccl_element, bytes.bytes() / type.size, nccl_op(reduce),
                           stream);
        });
        return;
    }
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
