// Which transport a Communicator uses, and why: NCCL where every rank can use it, else device
// memory shared between the ranks' processes where every rank can (IPC), else GPU-aware MPI
// where this rank's MPI reads CUDA memory, else staging through pinned host memory.
// DUALRT_MPI_TRANSPORT (auto | staged | gpu-aware | nccl | ipc) and
// CommunicatorOptions::force_staged narrow the choice; a transport asked for by name that cannot
// be used is an error.
#include "agreement.hpp"
#include "comm_state.hpp"
#include "mpi_check.hpp"

#include <dualrt/runtime.hpp>
#include <dualrt/shared_memory.hpp>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace dualrt::mpi::detail {
namespace {

inline constexpr const char* env_transport = "DUALRT_MPI_TRANSPORT";
inline constexpr const char* constructor = "dualrt::mpi::Communicator";

enum class Asked { automatic, staged, gpu_aware, nccl, ipc };

const char* asked_name(Asked asked) {
    switch (asked) {
    case Asked::automatic: return "auto";
    case Asked::staged: return "staged";
    case Asked::gpu_aware: return "gpu-aware";
    case Asked::nccl: return "nccl";
    case Asked::ipc: return "ipc";
    }
    return "?";
}

Asked asked_transport() {
    const char* value = std::getenv(env_transport);
    const std::string asked = value != nullptr && *value != '\0' ? value : "auto";
    if (asked == "auto") return Asked::automatic;
    if (asked == "staged") return Asked::staged;
    if (asked == "gpu-aware") return Asked::gpu_aware;
    if (asked == "nccl") return Asked::nccl;
    if (asked == "ipc") return Asked::ipc;
    raise(Errc::invalid_argument, constructor,
          std::string(env_transport) + "='" + asked +
              "' is not a transport; expected one of: auto, staged, gpu-aware, nccl, ipc");
}

// Why this rank cannot use NCCL (empty when it can; then `library` is set).
std::string nccl_problem(const Device& device, const nccl::Library*& library) {
    if (device.backend() != Backend::cuda)
        return "it is on an OpenCL device, and NCCL moves CUDA memory only";
    std::string why;
    library = nccl::library(why);
    return library != nullptr ? std::string() : why;
}

// Why `device` cannot share its memory with other processes for the IPC transport ("" when it
// can).
std::string ipc_device_problem(const Device& device) {
    if (device.backend() == Backend::cuda)
        return "it is on a CUDA device (CUDA ranks share through NCCL or GPU-aware MPI)";
    const SharingSupport support = process_sharing_support(device);
    return support.possible ? std::string() : support.reason;
}

// Why this rank cannot share device memory with the other ranks' processes ("" when it can).
// `ranks_on_node`: how many of the communicator's ranks share this rank's machine.
std::string ipc_problem(const CommState& comm, int ranks_on_node) {
    if (comm.size == 1) return "a communicator of one rank has no other process to share with";
    if (ranks_on_node != comm.size)
        return "its ranks are on more than one machine (" + std::to_string(ranks_on_node) +
               " of " + std::to_string(comm.size) + " on this one)";
    return ipc_device_problem(comm.device);
}

// Collective: how many ranks of the communicator share this rank's machine.
int ranks_on_this_node(const CommState& comm) {
    MPI_Comm node = MPI_COMM_NULL;
    DUALRT_MPI_CHECK(MPI_Comm_split_type(comm.headers, MPI_COMM_TYPE_SHARED, comm.rank,
                                         MPI_INFO_NULL, &node),
                     "finding the ranks of this machine");
    int ranks = 0;
    const int status = MPI_Comm_size(node, &ranks);
    MPI_Comm_free(&node);
    DUALRT_MPI_CHECK(status, "counting the ranks of this machine");
    return ranks;
}

// Collective: opens the shared slots where every rank can share device memory; else returns why
// not, the same text on every rank.
std::string start_ipc(CommState& comm, const std::string& problem) {
    if (std::string why = first_problem(comm.headers, comm.rank, comm.describe_self(), problem,
                                        "agreeing on the transport");
        !why.empty())
        return why;
    auto slots = std::make_unique<IpcSlots>(comm.device, comm.options.ipc_piece_bytes,
                                            2 * comm.options.pieces_in_flight);
    if (std::string why = slots->open(comm.headers, comm.rank, comm.size, comm.describe_self());
        !why.empty())
        return why;
    comm.ipc = std::move(slots);
    return "";
}

// Communicators of at most this many ranks open a pipe per ordered pair of ranks for sends and
// receives through NCCL (2 (n - 1) NCCL communicators on each rank); larger ones send and
// receive as without NCCL and use it for the collectives.
inline constexpr int max_pipe_ranks = 16;

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

// Collective: proves that NCCL starts on every rank, then opens the communicators that carry the
// data; throws on every rank where NCCL does not start.
void start_nccl(CommState& comm, const nccl::Library& nccl) {
    prove_nccl_starts(comm, nccl);
    open_nccl(comm, nccl);
}

}  // namespace

void check_transport(const Device& device, const CommunicatorOptions& options) {
    const Asked asked = asked_transport();
    if (options.force_staged) return;
    if (asked == Asked::gpu_aware &&
        !(device.backend() == Backend::cuda && mpi_reads_cuda_memory()))
        raise(Errc::unavailable, constructor,
              std::string(env_transport) + "=gpu-aware, but " +
                  (device.backend() != Backend::cuda
                       ? "the device is an OpenCL device (MPI reads no OpenCL memory)"
                       : "this MPI library does not report CUDA support "
                         "(MPIX_Query_cuda_support)"));
    if (asked == Asked::ipc)
        if (const std::string problem = ipc_device_problem(device); !problem.empty())
            raise(Errc::unavailable, constructor,
                  std::string(env_transport) +
                      "=ipc, but this rank cannot share device memory with other processes: " +
                      problem);
    const nccl::Library* library = nullptr;
    if (asked == Asked::nccl) {
        const std::string problem = nccl_problem(device, library);
        if (!problem.empty())
            raise(Errc::unavailable, constructor,
                  std::string(env_transport) + "=nccl, but this rank cannot use NCCL: " +
                      problem);
    }
}

int requested_transport_code() noexcept {
    try {
        return static_cast<int>(asked_transport());
    } catch (...) {
        return -1;  // the checks name the bad value
    }
}

void settle_transport(CommState& comm) {
    const Asked asked = asked_transport();  // the same on every rank: the constructor agreed
    const nccl::Library* library = nullptr;
    std::string problem;  // why this rank would do without NCCL
    if (comm.options.force_staged)
        problem = "its CommunicatorOptions::force_staged asks for staging";
    else if (asked != Asked::automatic && asked != Asked::nccl)
        problem = std::string(env_transport) + "=" + asked_name(asked);
    else
        problem = nccl_problem(comm.device, library);
    std::string not_nccl = first_problem(comm.headers, comm.rank, comm.describe_self(), problem,
                                         "agreeing on the transport");
    if (not_nccl.empty()) {
        try {
            start_nccl(comm, *library);
            comm.transport = Transport::nccl;
            comm.transport_reason =
                "NCCL " + library->version_string() +
                ": every rank is on a CUDA device and NCCL started on all of them" +
                (comm.nccl_pipes ? "" : "; sends and receives as without NCCL, since pipes "
                                        "between every two ranks are opened for at most " +
                                            std::to_string(max_pipe_ranks) + " ranks");
            return;
        } catch (const Error& e) {
            if (asked == Asked::nccl) throw;
            not_nccl = "not NCCL: " + e.detail();
        }
    } else {
        not_nccl = "not NCCL, since " + not_nccl;
    }

    // Every rank takes part, whatever its own problem, so that none waits for another.
    const int ranks_on_node = ranks_on_this_node(comm);
    std::string ipc_not_possible;
    if (comm.options.force_staged)
        ipc_not_possible = "its CommunicatorOptions::force_staged asks for staging";
    else if (asked != Asked::automatic && asked != Asked::ipc)
        ipc_not_possible = std::string(env_transport) + "=" + asked_name(asked);
    else
        ipc_not_possible = ipc_problem(comm, ranks_on_node);
    const std::string not_ipc = start_ipc(comm, ipc_not_possible);
    if (not_ipc.empty()) {
        comm.transport = Transport::ipc;
        comm.transport_reason = "IPC: every rank is on one machine, on a device that shares its "
                                "memory with the others' processes; " + not_nccl;
        return;
    }
    if (asked == Asked::ipc)
        raise(Errc::unavailable, constructor,
              std::string(env_transport) + "=ipc, but the ranks cannot share device memory (" +
                  not_ipc + ")");

    const bool gpu_aware = !comm.options.force_staged && asked != Asked::staged &&
                           comm.device.backend() == Backend::cuda && mpi_reads_cuda_memory();
    comm.transport = gpu_aware ? Transport::gpu_aware : Transport::staged;
    comm.transport_reason =
        std::string(gpu_aware ? "GPU-aware: this MPI reads CUDA memory"
                              : comm.device.backend() == Backend::cuda
                                    ? "staged: this MPI does not read CUDA memory"
                                    : "staged: MPI reads no OpenCL memory") +
        "; " + not_nccl + "; not IPC, since " + not_ipc;
}

}  // namespace dualrt::mpi::detail
