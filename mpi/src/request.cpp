#include "comm_state.hpp"
#include "mpi_check.hpp"

#include <dualrt/mpi.hpp>

#include <thread>

namespace dualrt::mpi {

Request::Request(std::shared_ptr<detail::CommState> comm,
                 std::shared_ptr<detail::Transfer> transfer)
    : comm_(std::move(comm)), transfer_(std::move(transfer)) {}

Request::Request(Request&&) noexcept = default;

Request& Request::operator=(Request&& other) noexcept {
    if (this != &other) {
        Request old(std::move(*this));  // waits for what this held, as the destructor does
        comm_ = std::move(other.comm_);
        transfer_ = std::move(other.transfer_);
    }
    return *this;
}

Request::~Request() {
    if (!valid()) return;
    try {
        wait();
    } catch (...) {
        // Dropped, as documented: a destructor must not throw; wait() reports failures.
    }
}

bool Request::test() {
    if (!valid()) detail::raise(Errc::invalid_argument, "Request::test", "the Request is empty");
    if (!transfer_->finished && !transfer_->failure) comm_->progress();
    if (transfer_->failure) {
        auto failure = transfer_->failure;
        transfer_.reset();
        comm_.reset();
        std::rethrow_exception(failure);
    }
    return transfer_->finished;
}

Event Request::wait() {
    if (!valid()) detail::raise(Errc::invalid_argument, "Request::wait", "the Request is empty");
    while (!transfer_->finished && !transfer_->failure) {
        comm_->progress();
        if (!transfer_->finished && !transfer_->failure) std::this_thread::yield();
    }
    const auto transfer = std::move(transfer_);
    comm_.reset();
    if (transfer->failure) std::rethrow_exception(transfer->failure);
    return transfer->last_copy;
}

}  // namespace dualrt::mpi
