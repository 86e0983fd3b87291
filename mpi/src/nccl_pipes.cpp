#include "nccl_pipes.hpp"

#include "mpi_check.hpp"

namespace dualrt::mpi::detail {

Pipe::Pipe(const nccl::Library& nccl, const Device& device, bool sending, int peer,
           const nccl::UniqueId& id)
    : sending_(sending), queue_(device.create_queue(QueueOptions{false})),
      comm_(std::make_unique<NcclComm>(
          nccl, device, 2, id, sending ? 1 : 0, true,
          (sending ? "the NCCL pipe to rank " : "the NCCL pipe from rank ") +
              std::to_string(peer))) {}

void Pipe::connect(const BufferView& byte) {
    const auto stream = reinterpret_cast<nccl::Stream>(queue_.native_handle());
    if (sending_) comm_->send(byte, 0, stream);
    else comm_->recv(byte, 1, stream);
}

std::shared_ptr<PipeTicket> Pipe::add(std::uint64_t number, const BufferView& buffer,
                                      Event after) {
    auto ticket = std::make_shared<PipeTicket>();
    waiting_.emplace(number, Waiting{Buffer<std::byte>(buffer), std::move(after), ticket});
    return ticket;
}

void Pipe::pump() {
    while (comm_->settled()) {
        if (settling_) {
            // NCCL has put the operation on the queue: what follows on the queue comes after it.
            settling_->done = queue_.mark();
            settling_->enqueued = true;
            settling_.reset();
        }
        const auto next = waiting_.find(next_);
        if (next == waiting_.end()) return;
        Waiting op = std::move(next->second);
        waiting_.erase(next);
        ++next_;
        queue_.wait(op.after);
        if (op.buffer.bytes() == 0) {  // both ends skip it alike
            op.ticket->done = queue_.mark();
            op.ticket->enqueued = true;
            continue;
        }
        const auto stream = reinterpret_cast<nccl::Stream>(queue_.native_handle());
        if (sending_) comm_->send(op.buffer, 0, stream);
        else comm_->recv(op.buffer, 1, stream);
        settling_ = std::move(op.ticket);
    }
}

void Pipe::finish() noexcept {
    try {
        queue_.finish();
    } catch (...) {
        // A failed device stays failed; the communicator is aborted rather than destroyed.
    }
}

namespace {
Pipe& pipe_of(std::map<int, std::unique_ptr<Pipe>>& pipes, int rank, const char* direction) {
    const auto found = pipes.find(rank);
    if (found == pipes.end())
        raise(Errc::backend_failure, "dualrt::mpi (NCCL)",
              std::string("no NCCL pipe ") + direction + " rank " + std::to_string(rank));
    return *found->second;
}
}  // namespace

Pipe& Pipes::to_rank(int rank) { return pipe_of(to, rank, "to"); }
Pipe& Pipes::from_rank(int rank) { return pipe_of(from, rank, "from"); }

std::vector<NcclComm*> Pipes::comms() {
    std::vector<NcclComm*> all;
    for (auto* side : {&to, &from})
        for (auto& [rank, pipe] : *side) all.push_back(&pipe->comm());
    return all;
}

void Pipes::finish() noexcept {
    for (auto& [rank, pipe] : to) pipe->finish();
    for (auto& [rank, pipe] : from) pipe->finish();
}

}  // namespace dualrt::mpi::detail
