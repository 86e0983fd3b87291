#include "agreement.hpp"
#include "comm_state.hpp"
#include "mpi_check.hpp"

#include <dualrt/mpi.hpp>

namespace dualrt::mpi {

const char* to_string(Transport transport) noexcept {
    switch (transport) {
    case Transport::staged: return "staged";
    case Transport::gpu_aware: return "GPU-aware";
    case Transport::nccl: return "NCCL";
    case Transport::ipc: return "IPC";
    }
    return "?";
}

const char* to_string(ReduceOp op) noexcept {
    switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    }
    return "?";
}

Communicator::Communicator(Device device, MPI_Comm comm, CommunicatorOptions options) {
    const char* op = "dualrt::mpi::Communicator";
    detail::require_mpi(op);
    if (comm == MPI_COMM_NULL) detail::raise(Errc::invalid_argument, op, "comm is MPI_COMM_NULL");
    // Collective: a rank whose arguments are wrong makes every rank throw, before any of them
    // duplicates the communicator (which the failing rank would never join).
    detail::agree(
        comm, op, "",
        [&] {
            if (!device.valid()) detail::raise(Errc::invalid_argument, op, "the Device is empty");
            if (options.piece_bytes < 4096 || options.piece_bytes > (std::size_t(1) << 30))
                detail::raise(Errc::invalid_argument, op,
                              "piece_bytes " + std::to_string(options.piece_bytes) +
                                  " is out of range; expected 4 KiB to 1 GiB");
            if (options.ipc_piece_bytes < 4096 ||
                options.ipc_piece_bytes > (std::size_t(256) << 20))
                detail::raise(Errc::invalid_argument, op,
                              "ipc_piece_bytes " + std::to_string(options.ipc_piece_bytes) +
                                  " is out of range; expected 4 KiB to 256 MiB");
            if (options.pieces_in_flight < 2 || options.pieces_in_flight > 64)
                detail::raise(Errc::invalid_argument, op,
                              "pieces_in_flight " + std::to_string(options.pieces_in_flight) +
                                  " is out of range; expected 2 to 64 (one piece cannot overlap)");
            detail::check_transport(device, options);  // a transport asked for and not possible
        },
        // Every rank must ask for the same transport: NCCL is all ranks' or none's.
        {{"DUALRT_MPI_TRANSPORT", detail::requested_transport_code()}});
    state_ = std::make_shared<detail::CommState>(std::move(device), comm, options);
}

Communicator::~Communicator() = default;
Communicator::Communicator(Communicator&&) noexcept = default;
Communicator& Communicator::operator=(Communicator&&) noexcept = default;

namespace {
const detail::CommState& checked(const std::shared_ptr<detail::CommState>& state,
                                 const char* operation) {
    if (!state)
        detail::raise(Errc::invalid_argument, operation,
                      "the Communicator is empty (moved from)");
    return *state;
}
}  // namespace

int Communicator::rank() const { return checked(state_, "Communicator::rank").rank; }
int Communicator::size() const { return checked(state_, "Communicator::size").size; }
const Device& Communicator::device() const {
    return checked(state_, "Communicator::device").device;
}
Transport Communicator::transport() const {
    return checked(state_, "Communicator::transport").transport;
}
const std::string& Communicator::transport_reason() const {
    return checked(state_, "Communicator::transport_reason").transport_reason;
}
MPI_Comm Communicator::native() const {
    return checked(state_, "Communicator::native").application;
}

Request Communicator::start_send(const Queue& queue, const BufferView& buffer,
                                 detail::ElementType type, int dest, int tag) {
    checked(state_, "Communicator::send");
    detail::require_mpi("dualrt::mpi::Communicator::send");
    auto transfer = detail::start_send(*state_, queue, buffer, type, dest, tag);
    state_->progress();
    return Request(state_, std::move(transfer));
}

Request Communicator::start_recv(const Queue& queue, const BufferView& buffer,
                                 detail::ElementType type, int source, int tag) {
    checked(state_, "Communicator::recv");
    detail::require_mpi("dualrt::mpi::Communicator::recv");
    auto transfer = detail::start_recv(*state_, queue, buffer, type, source, tag);
    state_->progress();
    return Request(state_, std::move(transfer));
}

void Communicator::finish(Request request) { request.wait().wait(); }

void Communicator::broadcast_bytes(const Queue& queue, const BufferView& buffer,
                                   detail::ElementType type, int root) {
    checked(state_, "Communicator::broadcast");
    detail::require_mpi("dualrt::mpi::Communicator::broadcast");
    detail::broadcast(*state_, queue, buffer, type, root);
}

void Communicator::allreduce_bytes(const Queue& queue, const BufferView& buffer,
                                   detail::ElementType type, ReduceOp op) {
    checked(state_, "Communicator::allreduce");
    detail::require_mpi("dualrt::mpi::Communicator::allreduce");
    detail::allreduce(*state_, queue, buffer, type, op);
}

}  // namespace dualrt::mpi
