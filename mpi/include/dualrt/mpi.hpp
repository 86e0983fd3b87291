/// @file
/// dualrt::mpi: dualrt under MPI. One device per rank, device buffers sent, received, broadcast
/// and reduced between ranks by the MPI library the application already runs, by NCCL where
/// every rank is on a CUDA device, or by the driver's device copies into memory the ranks'
/// processes share (never a network transport of dualrt's own). An optional component:
/// library dualrt_mpi, CMake target dualrt::mpi, pkg-config dualrt-mpi; libdualrt itself never
/// links MPI. docs/mpi.md is the guide.
///
/// @code{.cpp}
/// MPI_Init(&argc, &argv);
/// {
///     dualrt::Device device = dualrt::mpi::device_for_rank();  // node-local rank -> device
///     dualrt::mpi::Communicator comm(device);                  // dups MPI_COMM_WORLD
///     dualrt::Queue queue = device.create_queue();
///     auto field = device.alloc<float>(n);
///     // ... kernels on `queue` fill `field` ...
///     if (comm.rank() == 0) comm.send(queue, field, 1, 7);     // after the kernels
///     else comm.recv(queue, field, 0, 7);                      // later work on `queue` sees it
///     comm.allreduce(queue, field, dualrt::mpi::ReduceOp::sum);
/// }
/// MPI_Finalize();
/// @endcode
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>
#include <dualrt/event.hpp>
#include <dualrt/queue.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace dualrt::mpi {

/// Whether ranks of one node may share a device.
enum class DeviceSharing {
    forbid,  ///< more ranks on a node than devices is an error (the default)
    allow    ///< ranks beyond the device count wrap around: node rank k uses device k % count
};

/// Which device a rank uses. DUALRT_DEVICE, when set, wins: every rank takes the device it names
/// (as dualrt::select() does; launch ranks with different environments to place them apart).
/// Otherwise the rank's node-local rank (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) indexes the
/// devices of the backend DUALRT_BACKEND names, or with "auto" (the default) of CUDA when it is
/// available, else of OpenCL (its GPUs where there are any, else all its devices).
/// Collective over `comm`: where any rank fails to get a device, every rank throws (that rank
/// its own error, the others one of the same kind naming it).
/// @throws Error Errc::invalid_argument when a node has more ranks than devices and `sharing`
///         forbids sharing (naming both counts); Errc::unavailable when MPI is not initialised or
///         no backend has devices; what dualrt::select() throws for bad DUALRT_* values.
Device device_for_rank(MPI_Comm comm = MPI_COMM_WORLD,
                       DeviceSharing sharing = DeviceSharing::forbid);

/// How device buffers move between ranks (docs/mpi.md, "Transports").
enum class Transport {
    /// Through pinned host buffers, in pieces: the device copy of one piece overlaps the network
    /// transfer of the next. Works with every MPI and both backends.
    staged,
    /// Device pointers handed to MPI directly: only on CUDA, and only when the MPI library says
    /// at run time that it reads CUDA memory (Open MPI: MPIX_Query_cuda_support()).
    gpu_aware,
    /// Through NCCL (loaded at run time): chosen where every rank of the communicator is on a
    /// CUDA device and NCCL starts on all of them. Inside a node over NVLink or PCIe peer
    /// copies, between nodes over the network; MPI still carries the headers that check sizes.
    nccl,
    /// Through device memory the ranks' processes share (alloc_exported(), shared_memory.hpp):
    /// chosen where every rank is on one machine, on an OpenCL device that imports memory another
    /// process exports through CUDA (NVIDIA's OpenCL). A piece goes from the sender's buffer into
    /// its shared slot and from there into the receiver's buffer, device to device (over NVLink
    /// between GPUs); MPI carries only the headers and which slot holds which piece.
    ipc
};
/// "staged", "GPU-aware", "NCCL" or "IPC"
const char* to_string(Transport transport) noexcept;

/// The reductions allreduce() offers, for the arithmetic element types.
enum class ReduceOp { sum, min, max };
const char* to_string(ReduceOp op) noexcept;  ///< "sum", "min" or "max"

/// How a Communicator works. The defaults suit most jobs.
struct CommunicatorOptions {
    /// Bytes per staged piece (at least 4 KiB): smaller pieces start the network sooner, larger
    /// ones cost fewer messages.
    std::size_t piece_bytes = std::size_t(4) << 20;
    /// Pinned pieces in flight per staged transfer (at least 2, so a copy overlaps a transfer),
    /// and shared slots in flight per IPC transfer.
    std::size_t pieces_in_flight = 3;
    /// Bytes per IPC piece, the size of each shared slot (4 KiB to 256 MiB, NVIDIA's OpenCL's
    /// largest safe import). Larger than staged pieces: each piece costs a token and an
    /// acknowledgement through MPI, and device copies between GPUs reach the link's rate only
    /// in large pieces. A rank makes one slot per peer when the communicator starts and up to
    /// 2 * pieces_in_flight per peer as transfers need them.
    std::size_t ipc_piece_bytes = std::size_t(64) << 20;
    /// Ask for the staged transport even where NCCL, GPU-aware or IPC transfers are possible
    /// (also the environment: DUALRT_MPI_TRANSPORT=staged; "auto", the default, picks NCCL where
    /// every rank can use it, else IPC where every rank can, else GPU-aware where MPI offers it;
    /// "nccl", "ipc" and "gpu-aware" ask for one by name and are an error on every rank where it
    /// cannot be used).
    bool force_staged = false;
};

namespace detail {
struct CommState;
struct Transfer;

// What the two ends of a transfer compare: elements of the same size and kind.
struct ElementType {
    std::uint64_t size;  // sizeof(T)
    std::uint64_t code;  // an arithmetic type's code; 0 for any other trivially copyable type
    MPI_Datatype datatype;  // for reductions; MPI_DATATYPE_NULL where there is none
};

template <typename T> constexpr std::uint64_t type_code() {
    if constexpr (std::is_same_v<T, std::int8_t>) return 1;
    else if constexpr (std::is_same_v<T, std::uint8_t>) return 2;
    else if constexpr (std::is_same_v<T, std::int16_t>) return 3;
    else if constexpr (std::is_same_v<T, std::uint16_t>) return 4;
    else if constexpr (std::is_same_v<T, std::int32_t>) return 5;
    else if constexpr (std::is_same_v<T, std::uint32_t>) return 6;
    else if constexpr (std::is_same_v<T, std::int64_t>) return 7;
    else if constexpr (std::is_same_v<T, std::uint64_t>) return 8;
    else if constexpr (std::is_same_v<T, float>) return 9;
    else if constexpr (std::is_same_v<T, double>) return 10;
    else return 0;
}
// The MPI datatype of arithmetic type code `code` (MPI_DATATYPE_NULL for 0).
MPI_Datatype datatype_of(std::uint64_t code);

template <typename T> ElementType element_type() {
    static_assert(std::is_trivially_copyable_v<T>, "MPI transfers need trivially copyable types");
    return ElementType{sizeof(T), type_code<T>(), datatype_of(type_code<T>())};
}
}  // namespace detail

/// A non-blocking send or receive in progress. Progress happens whenever the Communicator is
/// called (test(), wait(), or any other transfer), as with MPI's own requests. Move-only; a
/// Request destroyed before it completed waits for it (errors are then dropped: wait() to see
/// them).
class Request {
public:
    Request() = default;  ///< empty: valid() is false
    Request(Request&&) noexcept;
    Request& operator=(Request&&) noexcept;
    ~Request();

    bool valid() const noexcept { return transfer_ != nullptr; }
    /// Advances every transfer of the communicator; true once this one has finished with MPI.
    /// @throws Error what failed (also once finished: a failure is reported once, then the
    ///         request is empty)
    bool test();
    /// Blocks until this transfer has finished with MPI, and returns the Event of its last device
    /// copy. A send's buffer may be written, and a receive's buffer read, by work ordered after
    /// that Event: `queue.wait(request.wait())` orders a queue's later work without blocking the
    /// host further. The request is empty afterwards.
    /// @throws Error what failed: sizes or types the two ranks disagree on, an MPI error (with
    ///         MPI's own message), a failing device copy
    Event wait();

private:
    friend class Communicator;
    Request(std::shared_ptr<detail::CommState> comm, std::shared_ptr<detail::Transfer> transfer);
    std::shared_ptr<detail::CommState> comm_;
    std::shared_ptr<detail::Transfer> transfer_;
};

/// Device buffers between the ranks of an MPI communicator. Each rank makes one with its own
/// device. The communicator is duplicated (MPI_Comm_dup: headers, pieces, replies, and native()
/// for the application), so dualrt's messages never match the application's own, and its errors
/// are returned, not fatal (MPI_ERRORS_RETURN on the duplicates).
///
/// A mistake on one rank is an Error on every rank the call involves (docs/mpi.md, "Errors reach
/// every rank"): collectives run an agreement step that carries each rank's own checks and
/// compares the element count, size and type; a send and its receive exchange a header and a
/// reply, and a rank whose own checks fail tells its peer. Nothing hangs, and the communicator
/// stays usable. A rank or tag out of range names no peer: it throws on the calling rank only.
///
/// Ordering: a transfer runs after the work enqueued on the given queue before the call.
/// send() and recv() return when the transfer is complete and (receiving) the data is in the
/// device buffer for every queue; the collectives when it is for the given queue (broadcast()).
/// Not thread-safe: one thread at a time per Communicator. Needs MPI initialised (any thread
/// level) and not finalised; destroy Communicators before MPI_Finalize, on every rank (as
/// MPI_Comm_free: NCCL's communicators are finalized with the peers').
class Communicator {
public:
    /// Duplicates `comm` for `device`'s transfers. Collective over `comm`: an empty device or bad
    /// options on any rank throw on every rank.
    /// @throws Error Errc::unavailable when MPI is not initialised or already finalised;
    ///         Errc::invalid_argument for an empty device, MPI_COMM_NULL or bad options
    explicit Communicator(Device device, MPI_Comm comm = MPI_COMM_WORLD,
                          CommunicatorOptions options = {});
    ~Communicator();  ///< waits for the transfers still running, then frees the duplicates
    Communicator(Communicator&&) noexcept;
    Communicator& operator=(Communicator&&) noexcept;

    int rank() const;            ///< this rank in the communicator
    int size() const;            ///< the number of ranks
    const Device& device() const;  ///< this rank's device
    Transport transport() const;  ///< how this rank moves device buffers
    /// Why transport() is what it is, e.g. "staged: MPI reads no OpenCL memory; not NCCL, since
    /// rank 1 (opencl device 0 '...'): it is on an OpenCL device, and NCCL moves CUDA memory
    /// only".
    const std::string& transport_reason() const;
    /// A duplicate of the communicator given, for the application's own messages: dualrt sends
    /// nothing on it. Freed with the Communicator.
    MPI_Comm native() const;

    /// Sends `buffer` to rank `dest` with `tag` (0 to MPI_TAG_UB) after the work enqueued on
    /// `queue` so far. The buffer must not be written until the request's Event (wait()).
    template <typename T>
    Request isend(const Queue& queue, const Buffer<T>& buffer, int dest, int tag) {
        return start_send(queue, buffer, detail::element_type<T>(), dest, tag);
    }
    /// Receives into `buffer` from rank `source` (or MPI_ANY_SOURCE) with `tag` (or MPI_ANY_TAG),
    /// after the work enqueued on `queue` so far (which may still read the buffer).
    template <typename T>
    Request irecv(const Queue& queue, const Buffer<T>& buffer, int source, int tag) {
        return start_recv(queue, buffer, detail::element_type<T>(), source, tag);
    }
    /// isend(...).wait(): returns once the buffer may be written again.
    template <typename T>
    void send(const Queue& queue, const Buffer<T>& buffer, int dest, int tag) {
        finish(isend(queue, buffer, dest, tag));
    }
    /// irecv(...).wait(): returns once the data is in `buffer`.
    template <typename T>
    void recv(const Queue& queue, const Buffer<T>& buffer, int source, int tag) {
        finish(irecv(queue, buffer, source, tag));
    }

    /// Every rank's `buffer` gets `root`'s. Collective. Returns once the result is in place for
    /// the work enqueued on `queue` after the call: through NCCL at once (the operation is on
    /// the queue's stream; the host does not wait), staged or GPU-aware once it has landed (so
    /// also for the host and other queues). Other queues wait for `queue.mark()`.
    template <typename T>
    void broadcast(const Queue& queue, const Buffer<T>& buffer, int root) {
        broadcast_bytes(queue, buffer, detail::element_type<T>(), root);
    }
    /// Every rank's `buffer` becomes the element-wise reduction of all ranks' buffers.
    /// Collective, and returns as broadcast() does. T: an 8- to 64-bit integer, float or double
    /// (16-bit integers, which NCCL lacks, are staged on every transport).
    template <typename T>
    void allreduce(const Queue& queue, const Buffer<T>& buffer, ReduceOp op) {
        static_assert(detail::type_code<T>() != 0,
                      "allreduce needs an arithmetic element type (integers, float, double)");
        allreduce_bytes(queue, buffer, detail::element_type<T>(), op);
    }

private:
    Request start_send(const Queue& queue, const BufferView& buffer, detail::ElementType type,
                       int dest, int tag);
    Request start_recv(const Queue& queue, const BufferView& buffer, detail::ElementType type,
                       int source, int tag);
    void finish(Request request);
    void broadcast_bytes(const Queue& queue, const BufferView& buffer, detail::ElementType type,
                         int root);
    void allreduce_bytes(const Queue& queue, const BufferView& buffer, detail::ElementType type,
                         ReduceOp op);

    std::shared_ptr<detail::CommState> state_;
};

}  // namespace dualrt::mpi
