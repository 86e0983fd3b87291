// What a Communicator holds: its duplicated MPI communicators, the queues of its device copies,
// the pinned slots, and the transfers in progress, which every call advances.
#pragma once

#include "ipc_slots.hpp"
#include "nccl_pipes.hpp"
#include "slot_cache.hpp"

#include <dualrt/mpi.hpp>

#include <cstdint>
#include <exception>
#include <memory>
#include <set>
#include <vector>

namespace dualrt::mpi::detail {

struct CommState;

// One send or receive in progress: a state machine advanced without blocking.
struct Transfer {
    virtual ~Transfer() = default;
    // Moves on as far as it can without blocking; true once finished with MPI. Throws on
    // failure, having settled what it can (no device copy left writing a slot it gives back).
    virtual bool advance(CommState& comm) = 0;
    // Called once when advance() has thrown: gives back what later transfers wait for.
    virtual void abandoned(CommState& comm) noexcept { (void)comm; }
    // (optional) Called when the communicator goes while this transfer still waits for a peer
    // that may never come: cancels what it posted. Defaults to nothing (it is waited for).
    virtual void cancel(CommState& comm) noexcept { (void)comm; }
    // Whether the communicator may cancel it instead of waiting (cancel()).
    virtual bool cancellable() const noexcept { return false; }

    bool finished = false;
    std::exception_ptr failure;
    Event last_copy;  // after it, the user's buffer is free (send) or filled (receive)
};

struct CommState {
    CommState(Device device, MPI_Comm comm, const CommunicatorOptions& options);
    ~CommState();  // drains the transfers in progress, then frees the duplicates
    CommState(const CommState&) = delete;
    CommState& operator=(const CommState&) = delete;

    // Advances every transfer in progress. Never throws: a failure stays with its transfer, for
    // its Request to report.
    void progress();
    // A tag for the replies and pieces of a new send, unique among this rank's sends in flight.
    int next_sequence();
    // Sends post their headers in the order they were started, as MPI matches messages of one
    // tag in the order they were sent: a send takes a ticket when it starts and may post its
    // header once every earlier ticket has posted (an inline send first waits for its download).
    std::uint64_t take_header_ticket() { return header_tickets_++; }
    bool may_post_header(std::uint64_t ticket) const { return ticket == headers_posted_; }
    void header_posted();
    // A send that failed before posting its header gives its turn away.
    void header_skipped(std::uint64_t ticket);
    // Throws Errc::invalid_argument unless `rank` names a rank of the communicator (or is
    // `wildcard`, when that is not 0).
    void check_rank(const char* operation, const char* role, int rank, int wildcard) const;
    void check_tag(const char* operation, int tag, bool any_allowed) const;
    // Throws Errc::invalid_argument unless `queue` and `buffer` are valid and of this rank's
    // device (the communicator's).
    void check_queue_and_buffer(const char* operation, const Queue& queue,
                                const BufferView& buffer) const;
    // "rank 2 (opencl device 1 'pthread-...')": this rank in error messages.
    std::string describe_self() const;

    Device device;
    CommunicatorOptions options;
    Transport transport = Transport::staged;
    std::string transport_reason;  // Communicator::transport_reason()
    // Duplicates: headers (also collectives), pieces and replies never match each other or
    // the application's messages; `application` is the application's own (native()), on which
    // dualrt sends nothing.
    MPI_Comm headers = MPI_COMM_NULL, pieces = MPI_COMM_NULL, replies = MPI_COMM_NULL,
             application = MPI_COMM_NULL;
    int rank = 0, size = 1, tag_upper_bound = 32767;
    // Device copies of staged transfers: downloads and uploads on queues of their own, so the
    // two directions use both copy engines and never wait behind the application's kernels.
    Queue downloads, uploads;
    SlotCache slots;
    // The NCCL transport: the communicator of all ranks (collectives, on the caller's queue) and
    // the pipes of sends and receives (nccl_pipes.hpp).
    std::unique_ptr<NcclComm> nccl_all;
    Event last_collective;  // after the last NCCL collective, on the caller's queue
    Pipes pipes;
    bool nccl_pipes = false;  // sends and receives through the pipes
    // The IPC transport: this rank's shared slots and its imports of the others'.
    std::unique_ptr<IpcSlots> ipc;
    std::vector<std::shared_ptr<Transfer>> active;
    // Transfers that failed with MPI operations possibly in flight: kept (with their slots) until
    // the communicator goes, so MPI never writes freed memory.
    std::vector<std::shared_ptr<Transfer>> failed;

private:
    std::uint64_t sequence_ = 0;
    std::uint64_t header_tickets_ = 0, headers_posted_ = 0;
    std::set<std::uint64_t> skipped_tickets_;
};

// "opencl device 1 'pthread-...'": a device in error messages.
std::string describe(const Device& device);

// A send or receive of `buffer` (bytes, whatever the element type), registered as active.
std::shared_ptr<Transfer> start_send(CommState& comm, const Queue& queue, const BufferView& buffer,
                                     const ElementType& type, int dest, int tag);
std::shared_ptr<Transfer> start_recv(CommState& comm, const Queue& queue, const BufferView& buffer,
                                     const ElementType& type, int source, int tag);

// The collectives (blocking).
void broadcast(CommState& comm, const Queue& queue, const BufferView& buffer,
               const ElementType& type, int root);
void allreduce(CommState& comm, const Queue& queue, const BufferView& buffer,
               const ElementType& type, ReduceOp op);

// Whether the MPI library reads CUDA device memory (Open MPI's MPIX_Query_cuda_support).
bool mpi_reads_cuda_memory();
// This rank's part of the transport checks (transport.cpp): throws for a bad
// DUALRT_MPI_TRANSPORT, or a transport asked for by name that this rank cannot use.
void check_transport(const Device& device, const CommunicatorOptions& options);
// DUALRT_MPI_TRANSPORT as a number the ranks compare (-1 for a value that is not a transport).
int requested_transport_code() noexcept;
// Collective: sets comm.transport and comm.transport_reason, starting NCCL where every rank can
// use it. Throws on every rank where NCCL was asked for by name and did not start.
void settle_transport(CommState& comm);

// The device address of byte `offset` of `buffer` (CUDA: CUdeviceptr + view offset).
void* device_address(const BufferView& buffer, std::size_t offset);

}  // namespace dualrt::mpi::detail
