#include "nccl_pipes.hpp"

namespace dualrt::mpi::detail {

Pipe::Pipe(const Device& device, bool sending, int peer)
    : device_(device), sending_(sending), peer_(peer),
      queue_(device_.create_queue(QueueOptions{false})) {}

void Pipe::join(const nccl::Library& nccl, const nccl::UniqueId& id) {
    const std::string what = sending_ ? "the NCCL pipe to rank " + std::to_string(peer_)
                                      : "the NCCL pipe from rank " + std::to_string(peer_);
    comm_ = std::make_unique<NcclComm>(nccl, device_, 2, id, sending_ ? 1 : 0, what);
}

std::shared_ptr<PipeTicket> Pipe::add(std::uint64_t number, const BufferView& buffer,
                                      Event after) {
    auto ticket = std::make_shared<PipeTicket>();
    waiting_.emplace(number, Waiting{Buffer<std::byte>(buffer), std::move(after), ticket});
    return ticket;
}

void Pipe::pump() {
    if (!comm_) return;
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

Pipe& Pipes::to_rank(const Device& device, int rank) {
    auto& pipe = to[rank];
    if (!pipe) pipe = std::make_unique<Pipe>(device, true, rank);
    return *pipe;
}

Pipe& Pipes::from_rank(const Device& device, int rank) {
    auto& pipe = from[rank];
    if (!pipe) pipe = std::make_unique<Pipe>(device, false, rank);
    return *pipe;
}

std::vector<NcclComm*> Pipes::comms() {
    std::vector<NcclComm*> all;
    for (auto* side : {&to, &from})
        for (auto& [rank, pipe] : *side)
            if (pipe->comm() != nullptr) all.push_back(pipe->comm());
    return all;
}

void Pipes::finish() noexcept {
    for (auto& [rank, pipe] : to) pipe->finish();
    for (auto& [rank, pipe] : from) pipe->finish();
}

}  // namespace dualrt::mpi::detail
