// One NCCL communicator: a Communicator's whole group (its collectives) or one ordered pair of
// ranks (its sends from one to the other). Non-blocking ones (NCCL's config.blocking = 0) return
// from every call at once and are polled, so a rank that fails cannot leave the others waiting
// inside NCCL; but NCCL starts a thread for each of their operations. So a non-blocking
// communicator of all ranks first proves that NCCL starts everywhere, and the communicators
// that carry data are blocking ones, opened together once it has (transport.cpp).
#pragma once

#include "nccl_api.hpp"

#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>

#include <string>

namespace dualrt::mpi::detail {

class NcclComm {
public:
    // Starts joining the communicator `id` names as `rank` of `ranks`. `what` names it in
    // errors ("the NCCL pipe to rank 1").
    NcclComm(const nccl::Library& nccl, Device device, int ranks, const nccl::UniqueId& id,
             int rank, bool blocking, std::string what);
    // Frees a finalized communicator; aborts one that failed or was not finalized.
    ~NcclComm();
    NcclComm(const NcclComm&) = delete;
    NcclComm& operator=(const NcclComm&) = delete;

    // Whether the creation or the last enqueue has finished. Throws Errc::backend_failure with
    // NCCL's message when it failed (or an operation in flight did), and aborts the communicator.
    bool settled();
    // Polls settled() until it is.
    void wait_settled();

    // Enqueue on `stream` (a CUstream of this communicator's device); call when settled().
    void send(const BufferView& buffer, int peer, nccl::Stream stream);
    void recv(const BufferView& buffer, int peer, nccl::Stream stream);
    void broadcast(const BufferView& buffer, int root, nccl::Stream stream);
    void all_reduce(const BufferView& buffer, nccl::DataType type, std::size_t count,
                    nccl::RedOp op, nccl::Stream stream);

    // Starts flushing what was issued (ncclCommFinalize). The communicator is quiet once every
    // rank of it has finalized too, so a rank's communicators are finalized together and then
    // polled together (one after another, two ranks could each wait on the other's next).
    void finalize() noexcept;
    // Whether finalize() has settled (or failed: then the destructor aborts).
    bool quiet() noexcept;

private:
    // A call NCCL took (done, or under way on a non-blocking communicator); else fail().
    void accepted(nccl::Result result, const char* call);
    [[noreturn]] void fail(const std::string& message);

    const nccl::Library& nccl_;
    Device device_;
    std::string what_;
    nccl::Comm comm_ = nullptr;
    bool failed_ = false, finalizing_ = false, finalized_ = false;
};

}  // namespace dualrt::mpi::detail
