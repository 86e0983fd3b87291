#include "comm_state.hpp"

#include "mpi_check.hpp"

#include <algorithm>
#include <thread>

namespace dualrt::mpi::detail {
namespace {

MPI_Comm duplicate(MPI_Comm comm, const char* purpose) {
    MPI_Comm copy = MPI_COMM_NULL;
    DUALRT_MPI_CHECK(MPI_Comm_dup(comm, &copy), std::string("duplicating the communicator for ") +
                                                    purpose);
    // Errors come back as return codes and become dualrt::Error, instead of MPI's default of
    // aborting the job.
    DUALRT_MPI_CHECK(MPI_Comm_set_errhandler(copy, MPI_ERRORS_RETURN),
                     std::string("returning errors on the communicator for ") + purpose);
    return copy;
}

void free_communicator(MPI_Comm& comm) {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

}  // namespace

std::string describe(const Device& device) {
    const auto& info = device.info();
    return std::string(to_string(info.backend)) + " device " + std::to_string(info.index) + " '" +
           info.name + "'";
}

CommState::CommState(Device device_, MPI_Comm comm, const CommunicatorOptions& options_)
    : device(std::move(device_)), options(options_), slots(device) {
    try {
        headers = duplicate(comm, "headers and collectives");
        pieces = duplicate(comm, "pieces");
        replies = duplicate(comm, "replies");
        application = duplicate(comm, "the application (native())");
        DUALRT_MPI_CHECK(MPI_Comm_rank(headers, &rank), "finding this rank");
        DUALRT_MPI_CHECK(MPI_Comm_size(headers, &size), "counting the ranks");
        int* upper = nullptr;
        int found = 0;
        DUALRT_MPI_CHECK(MPI_Comm_get_attr(headers, MPI_TAG_UB, &upper, &found),
                         "reading MPI_TAG_UB");
        if (found && upper != nullptr) tag_upper_bound = *upper;
        // Their events order the staged pieces and are never timed: cheaper on OpenCL.
        downloads = device.create_queue(QueueOptions{false});
        uploads = device.create_queue(QueueOptions{false});
        settle_transport(*this);
    } catch (...) {
        free_communicator(application);
        free_communicator(replies);
        free_communicator(pieces);
        free_communicator(headers);
        throw;
    }
}

CommState::~CommState() {
    int finalised = 0;
    MPI_Finalized(&finalised);
    // Transfers still running must finish before their buffers and communicators go; as with
    // MPI's own requests, one whose peer never answers would wait here forever. Those left behind
    // by a failed receive only answer a peer that may never come, and are cancelled.
    if (!finalised) {
        progress();
        for (const auto& transfer : active)
            if (transfer->cancellable() && !transfer->finished && !transfer->failure) {
                transfer->cancel(*this);
                transfer->finished = true;
            }
        active.erase(std::remove_if(active.begin(), active.end(),
                                    [](const auto& t) { return t->finished; }),
                     active.end());
    }
    while (!finalised && !active.empty()) {
        progress();
        std::this_thread::yield();
    }
    pipes.finish();
    try {
        if (last_collective.valid()) last_collective.wait();
    } catch (...) {
        // A failed device: the communicators are aborted below instead of finalized.
    }
    std::vector<NcclComm*> comms = pipes.comms();
    if (nccl_all) comms.push_back(nccl_all.get());
    for (NcclComm* comm : comms) comm->finalize();
    for (bool quiet = false; !quiet;) {
        quiet = true;
        for (NcclComm* comm : comms) quiet = comm->quiet() && quiet;
        if (!quiet) std::this_thread::yield();
    }
    pipes = Pipes{};
    nccl_all.reset();
    try {
        downloads.finish();
        uploads.finish();
    } catch (...) {
        // A failed device stays failed; nothing here can make it better, and a destructor must
        // not throw.
    }
    if (finalised) return;
    free_communicator(application);
    free_communicator(replies);
    free_communicator(pieces);
    free_communicator(headers);
}

void CommState::progress() {
    for (const auto& transfer : active) {
        if (transfer->finished || transfer->failure) continue;
        try {
            transfer->finished = transfer->advance(*this);
        } catch (...) {
            transfer->failure = std::current_exception();
            transfer->abandoned(*this);
            failed.push_back(transfer);
        }
    }
    active.erase(std::remove_if(active.begin(), active.end(),
                                [](const auto& t) { return t->finished || t->failure; }),
                 active.end());
}

void CommState::header_posted() {
    ++headers_posted_;
    while (skipped_tickets_.erase(headers_posted_) > 0) ++headers_posted_;
}

void CommState::header_skipped(std::uint64_t ticket) {
    if (ticket != headers_posted_) {
        skipped_tickets_.insert(ticket);
        return;
    }
    header_posted();
}

int CommState::next_sequence() {
    return static_cast<int>(sequence_++ % (static_cast<std::uint64_t>(tag_upper_bound) + 1));
}

void CommState::check_rank(const char* operation, const char* role, int value,
                           int wildcard) const {
    if (wildcard != 0 && value == wildcard) return;
    if (value < 0 || value >= size)
        raise(Errc::invalid_argument, operation,
              std::string(role) + " rank " + std::to_string(value) + " is not a rank of this " +
                  "communicator; expected 0 to " + std::to_string(size - 1) +
                  (wildcard != 0 ? " or MPI_ANY_SOURCE" : ""));
}

void CommState::check_tag(const char* operation, int tag, bool any_allowed) const {
    if (any_allowed && tag == MPI_ANY_TAG) return;
    if (tag < 0 || tag > tag_upper_bound)
        raise(Errc::invalid_argument, operation,
              "tag " + std::to_string(tag) + " is out of range; expected 0 to MPI_TAG_UB (" +
                  std::to_string(tag_upper_bound) + ")" +
                  (any_allowed ? " or MPI_ANY_TAG" : ""));
}

void CommState::check_queue_and_buffer(const char* operation, const Queue& queue,
                                       const BufferView& buffer) const {
    if (!queue.valid())
        raise(Errc::invalid_argument, operation, "the Queue is empty (default-constructed)");
    if (!buffer.valid())
        raise(Errc::invalid_argument, operation, "the Buffer is empty (default-constructed)");
    if (queue.device() != device)
        raise(Errc::invalid_argument, operation,
              "the Queue is of " + describe(queue.device()) +
                  "; expected a queue of this rank's device, " + describe(device) +
                  " (the Communicator's)");
    if (buffer.device() != device)
        raise(Errc::invalid_argument, operation,
              "the Buffer is on " + describe(buffer.device()) +
                  "; expected a buffer on this rank's device, " + describe(device) +
                  " (the Communicator's)");
}

std::string CommState::describe_self() const {
    return "rank " + std::to_string(rank) + " (" + describe(device) + ")";
}

}  // namespace dualrt::mpi::detail
