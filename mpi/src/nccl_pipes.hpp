// Sends and receives through NCCL: one two-rank NCCL communicator per ordered pair of ranks (a
// pipe from a sender to a receiver), with a queue of its own at each end.
//
// Why a pipe per ordered pair: NCCL matches a pair's sends and receives by the order they are
// enqueued, and runs one communicator's operations one after another. With one communicator for
// every direction, two ranks sending to each other at once could each enqueue their send ahead of
// their receive, and each send would wait for a receive queued behind the other's send. A pipe
// carries one direction between two ranks only, so nothing waits ahead of a match but the pipe's
// earlier messages.
//
// Order: the receiver numbers the sends it accepts from each sender (its reply carries the
// number), and both ends enqueue a pipe's operations in that order, whatever order MPI matched
// the headers in (tags may reorder them).
//
// Every pipe is opened when the Communicator is made (transport.cpp): a blocking NCCL
// communicator made later, when a first send needs it, could leave two ranks each waiting inside
// NCCL for the other, and non-blocking ones cost a thread per operation.
#pragma once

#include "nccl_comm.hpp"

#include <dualrt/buffer.hpp>
#include <dualrt/event.hpp>
#include <dualrt/queue.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace dualrt::mpi::detail {

// A transfer's place in a pipe: `enqueued` once its NCCL operation is on the pipe's queue, and
// `done` the event after it.
struct PipeTicket {
    bool enqueued = false;
    Event done;
};

class Pipe {
public:
    // Starts joining the pipe `id` names. `sending`: this rank is the pipe's sender (NCCL rank 1;
    // the receiver, who made the id, is 0). Throws what NcclComm's constructor throws.
    Pipe(const nccl::Library& nccl, const Device& device, bool sending, int peer,
         const nccl::UniqueId& id);
    // The receiver's number for its next accepted send.
    std::uint64_t take_number() { return numbered_++; }
    // Adds the transfer numbered `number`: `buffer` after `after`, enqueued in number order.
    std::shared_ptr<PipeTicket> add(std::uint64_t number, const BufferView& buffer, Event after);
    // Enqueues what may go now. Throws when the pipe failed.
    void pump();
    // Waits for the pipe's queue (before its communicator goes).
    void finish() noexcept;
    NcclComm& comm() { return *comm_; }
    // Enqueues a one-byte transfer, so that NCCL connects the pipe while every rank opens its
    // pipes together (within one NCCL group).
    void connect(const BufferView& byte);

private:
    struct Waiting {
        Buffer<std::byte> buffer;
        Event after;
        std::shared_ptr<PipeTicket> ticket;
    };

    bool sending_;
    Queue queue_;
    std::unique_ptr<NcclComm> comm_;
    std::uint64_t numbered_ = 0, next_ = 0;
    std::map<std::uint64_t, Waiting> waiting_;
    std::shared_ptr<PipeTicket> settling_;  // enqueued; its event is recorded once NCCL settles
};

// A communicator's pipes: to each rank it sends to, from each rank it receives from.
struct Pipes {
    std::map<int, std::unique_ptr<Pipe>> to, from;
    // Throws Errc::backend_failure when there is no pipe (a communicator too large for them).
    Pipe& to_rank(int rank);
    Pipe& from_rank(int rank);
    void finish() noexcept;
    // Every pipe's NCCL communicator.
    std::vector<NcclComm*> comms();
};

}  // namespace dualrt::mpi::detail
