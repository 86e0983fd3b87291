#include "nccl_comm.hpp"

#include "comm_state.hpp"
#include "mpi_check.hpp"

#include <thread>

namespace dualrt::mpi::detail {

NcclComm::NcclComm(const nccl::Library& nccl, Device device, int ranks, const nccl::UniqueId& id,
                   int rank, bool blocking, std::string what)
    : nccl_(nccl), device_(std::move(device)), what_(std::move(what)) {
    nccl::CurrentDevice current(device_);
    nccl::Config config;
    config.blocking = blocking ? 1 : 0;
    accepted(nccl_.comm_init_rank_config(&comm_, ranks, id, rank, &config),
             "ncclCommInitRankConfig");
}

NcclComm::~NcclComm() {
    if (comm_ == nullptr) return;
    try {
        nccl::CurrentDevice current(device_);
        if (finalized_) nccl_.comm_destroy(comm_);
        else nccl_.comm_abort(comm_);
    } catch (...) {
        // A destructor must not throw; without the context NCCL cannot free its part anyway.
    }
}

void NcclComm::fail(const std::string& message) {
    failed_ = true;
    if (comm_ != nullptr) {
        nccl::CurrentDevice current(device_);
        nccl_.comm_abort(comm_);
    }
    comm_ = nullptr;
    raise(Errc::backend_failure, "dualrt::mpi (NCCL)", what_ + ": " + message);
}

bool NcclComm::settled() {
    if (failed_ || comm_ == nullptr)
        raise(Errc::backend_failure, "dualrt::mpi (NCCL)", what_ + " failed earlier");
    nccl::Result state = nccl::success;
    const nccl::Result result = nccl_.comm_get_async_error(comm_, &state);
    if (result != nccl::success)
        fail(nccl::describe_failure(nccl_, "ncclCommGetAsyncError", result, comm_));
    if (state == nccl::in_progress) return false;
    if (state != nccl::success) fail(nccl::describe_failure(nccl_, "(in flight)", state, comm_));
    return true;
}

void NcclComm::finalize() noexcept {
    if (comm_ == nullptr || failed_ || finalizing_) return;
    try {
        nccl::CurrentDevice current(device_);
        const nccl::Result result = nccl_.comm_finalize(comm_);
        finalizing_ = result == nccl::success || result == nccl::in_progress;
    } catch (...) {
        // Without the context NCCL cannot flush; the destructor aborts instead.
    }
}

bool NcclComm::quiet() noexcept {
    if (!finalizing_ || finalized_) return true;
    nccl::Result state = nccl::success;
    if (nccl_.comm_get_async_error(comm_, &state) != nccl::success) state = nccl::in_progress;
    if (state == nccl::in_progress) return false;
    finalized_ = state == nccl::success;
    return true;
}

void NcclComm::wait_settled() {
    while (!settled()) std::this_thread::yield();
}

void NcclComm::accepted(nccl::Result result, const char* call) {
    if (result != nccl::success && result != nccl::in_progress)
        fail(nccl::describe_failure(nccl_, call, result, comm_));
}

void NcclComm::send(const BufferView& buffer, int peer, nccl::Stream stream) {
    nccl::CurrentDevice current(device_);
    accepted(nccl_.send(device_address(buffer, 0), buffer.bytes(), nccl::uint8, peer, comm_,
                        stream),
             "ncclSend");
}

void NcclComm::recv(const BufferView& buffer, int peer, nccl::Stream stream) {
    nccl::CurrentDevice current(device_);
    accepted(nccl_.recv(device_address(buffer, 0), buffer.bytes(), nccl::uint8, peer, comm_,
                        stream),
             "ncclRecv");
}

void NcclComm::broadcast(const BufferView& buffer, int root, nccl::Stream stream) {
    nccl::CurrentDevice current(device_);
    void* data = device_address(buffer, 0);
    accepted(nccl_.broadcast(data, data, buffer.bytes(), nccl::uint8, root, comm_, stream),
             "ncclBroadcast");
}

void NcclComm::all_reduce(const BufferView& buffer, nccl::DataType type, std::size_t count,
                          nccl::RedOp op, nccl::Stream stream) {
    nccl::CurrentDevice current(device_);
    void* data = device_address(buffer, 0);
    accepted(nccl_.all_reduce(data, data, count, type, op, comm_, stream), "ncclAllReduce");
}

}  // namespace dualrt::mpi::detail
