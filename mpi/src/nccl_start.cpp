#include "nccl_start.hpp"

#include "mpi_check.hpp"

#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace dualrt::mpi::detail {
namespace {

inline constexpr const char* constructor = "dualrt::mpi::Communicator";


// Collective over `over`: rank 0's new NCCL id, or an Error on every rank.
nccl::UniqueId shared_id(const CommState& comm, const nccl::Library& nccl, MPI_Comm over) {
    struct {
        int ok = 0;
        nccl::UniqueId id{};
    } root;
    if (comm.rank == 0) root.ok = nccl.get_unique_id(&root.id) == nccl::success ? 1 : 0;
    DUALRT_MPI_CHECK(MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, over), "starting NCCL");
    if (!root.ok)
        raise(Errc::backend_failure, constructor,
              "NCCL could not start: rank 0's ncclGetUniqueId failed");
    return root.id;
}

std::string receive_notice(MPI_Comm setup, const MPI_Status& status) {
    int length = 0;
    DUALRT_MPI_CHECK(MPI_Get_count(&status, MPI_CHAR, &length), "receiving an NCCL failure");
    std::string text(static_cast<std::size_t>(length), '\0');
    DUALRT_MPI_CHECK(MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, 0, setup,
                              MPI_STATUS_IGNORE),
                     "receiving an NCCL failure");
    return text;
}

// Collective: every rank joins a non-blocking NCCL communicator of all ranks, or every rank
// throws. A rank whose part fails tells the others (on a communicator of its own for the
// purpose), which abort theirs instead of waiting inside NCCL for a rank that never comes. The
// communicator is finalized and freed again: it only proves that NCCL starts on every rank.
void prove_nccl_starts(CommState& comm, const nccl::Library& nccl) {
    MPI_Comm setup = MPI_COMM_NULL;
    DUALRT_MPI_CHECK(MPI_Comm_dup(comm.headers, &setup), "starting NCCL");
    struct Freed {
        MPI_Comm& comm;
        ~Freed() { MPI_Comm_free(&comm); }
    } freed{setup};
    DUALRT_MPI_CHECK(MPI_Comm_set_errhandler(setup, MPI_ERRORS_RETURN), "starting NCCL");
    const nccl::UniqueId id = shared_id(comm, nccl, setup);

    std::unique_ptr<NcclComm> all;
    std::string failure;
    int failed_here = 0, received = 0;
    std::string notice;
    std::vector<MPI_Request> told;
    try {
        all = std::make_unique<NcclComm>(nccl, comm.device, comm.size, id, comm.rank, false,
                                         "NCCL's communicator of all ranks");
        while (!all->settled()) {
            int arrived = 0;
            MPI_Status status;
            DUALRT_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 0, setup, &arrived, &status),
                             "starting NCCL");
            if (arrived) {
                failure = receive_notice(setup, status);
                ++received;
                all.reset();  // aborts this rank's part
                break;
            }
            std::this_thread::yield();
        }
    } catch (const Error& e) {
        all.reset();
        failed_here = 1;
        failure = comm.describe_self() + ": " + e.detail();
        notice = failure;
        for (int rank = 0; rank < comm.size; ++rank) {
            if (rank == comm.rank) continue;
            told.emplace_back();
            DUALRT_MPI_CHECK(MPI_Isend(notice.data(), static_cast<int>(notice.size()), MPI_CHAR,
                                       rank, 0, setup, &told.back()),
                             "telling the other ranks that NCCL failed");
        }
    }
    int failures = 0;
    DUALRT_MPI_CHECK(MPI_Allreduce(&failed_here, &failures, 1, MPI_INT, MPI_SUM, setup),
                     "starting NCCL");
    // Every failing rank told every other: the notices not received yet are collected, so that
    // none is left behind in MPI.
    for (; received < failures - failed_here; ++received) {
        MPI_Status status;
        DUALRT_MPI_CHECK(MPI_Probe(MPI_ANY_SOURCE, 0, setup, &status), "starting NCCL");
        const std::string text = receive_notice(setup, status);
        if (failure.empty()) failure = text;
    }
    DUALRT_MPI_CHECK(MPI_Waitall(static_cast<int>(told.size()), told.data(),
                                 MPI_STATUSES_IGNORE),
                     "telling the other ranks that NCCL failed");
    if (failures > 0) {
        all.reset();
        raise(Errc::backend_failure, constructor,
              "NCCL could not start on every rank (" + failure + ")");
    }
    all->finalize();
    while (!all->quiet()) std::this_thread::yield();
}

// Runs `calls` (NCCL calls on this rank's device) as one NCCL group: NCCL carries them out
// together at the group's end, whatever order the ranks made them in.
template <typename Calls>
void in_group(const CommState& comm, const nccl::Library& nccl, const char* what, Calls&& calls) {
    nccl::CurrentDevice current(comm.device);
    nccl.group_start();
    try {
        calls();
    } catch (...) {
        nccl.group_end();
        throw;
    }
    if (const nccl::Result result = nccl.group_end(); result != nccl::success)
        raise(Errc::backend_failure, constructor,
              nccl::describe_failure(nccl, (std::string("ncclGroupEnd (") + what + ")").c_str(),
                                     result, nullptr));
}

// Collective, once NCCL has proved to start everywhere: the blocking communicators that carry
// the data, opened together within one NCCL group (so no rank waits inside NCCL for another
// that is opening a different one): the communicator of all ranks, and with at most
// max_pipe_ranks ranks the pipes (nccl_pipes.hpp), each connected by a one-byte transfer.
void open_nccl(CommState& comm, const nccl::Library& nccl) {
    const nccl::UniqueId all_id = shared_id(comm, nccl, comm.headers);
    const int ranks = comm.size;
    const bool pipes = ranks <= max_pipe_ranks;
    // into[p]: this rank's id for the pipe from rank p; out_of[p]: rank p's for the pipe to it.
    std::vector<nccl::UniqueId> into(static_cast<std::size_t>(ranks)), out_of(into.size());
    int made = 1;
    if (pipes)
        for (int p = 0; p < ranks && made; ++p)
            if (p != comm.rank) made = nccl.get_unique_id(&into[static_cast<std::size_t>(p)]) ==
                                       nccl::success;
    DUALRT_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &made, 1, MPI_INT, MPI_MIN, comm.headers),
                     "opening NCCL's communicators");
    if (!made) raise(Errc::backend_failure, constructor, "ncclGetUniqueId failed on a rank");
    if (pipes)
        DUALRT_MPI_CHECK(MPI_Alltoall(into.data(), sizeof(nccl::UniqueId), MPI_BYTE,
                                      out_of.data(), sizeof(nccl::UniqueId), MPI_BYTE,
                                      comm.headers),
                         "sharing the NCCL pipes' ids");
    in_group(comm, nccl, "opening", [&] {
        comm.nccl_all = std::make_unique<NcclComm>(nccl, comm.device, ranks, all_id, comm.rank,
                                                   true, "NCCL's communicator of all ranks");
        for (int p = 0; pipes && p < ranks; ++p) {
            if (p == comm.rank) continue;
            const auto at = static_cast<std::size_t>(p);
            comm.pipes.to[p] = std::make_unique<Pipe>(nccl, comm.device, true, p, out_of[at]);
            comm.pipes.from[p] = std::make_unique<Pipe>(nccl, comm.device, false, p, into[at]);
        }
    });
    comm.nccl_all->wait_settled();
    if (!pipes) return;
    auto byte = comm.device.alloc<std::byte>(2);
    in_group(comm, nccl, "connecting", [&] {
        for (auto& [rank, pipe] : comm.pipes.to) pipe->connect(byte.view(0, 1));
        for (auto& [rank, pipe] : comm.pipes.from) pipe->connect(byte.view(1, 1));
    });
    comm.pipes.finish();
    comm.nccl_pipes = true;
}

}  // namespace

void start_nccl(CommState& comm, const nccl::Library& nccl) {
    prove_nccl_starts(comm, nccl);
    open_nccl(comm, nccl);
}

}  // namespace dualrt::mpi::detail
