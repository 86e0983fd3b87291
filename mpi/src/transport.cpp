// Which transport a Communicator uses, and why: NCCL where every rank can use it, else GPU-aware
// MPI where this rank's MPI reads CUDA memory, else staging through pinned host memory.
// DUALRT_MPI_TRANSPORT (auto | staged | gpu-aware | nccl) and CommunicatorOptions::force_staged
// narrow the choice; a transport asked for by name that cannot be used is an error.
#include "comm_state.hpp"
#include "mpi_check.hpp"

#include <dualrt/runtime.hpp>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace dualrt::mpi::detail {
namespace {

inline constexpr const char* env_transport = "DUALRT_MPI_TRANSPORT";
inline constexpr const char* constructor = "dualrt::mpi::Communicator";

enum class Asked { automatic, staged, gpu_aware, nccl };

Asked asked_transport() {
    const char* value = std::getenv(env_transport);
    const std::string asked = value != nullptr && *value != '\0' ? value : "auto";
    if (asked == "auto") return Asked::automatic;
    if (asked == "staged") return Asked::staged;
    if (asked == "gpu-aware") return Asked::gpu_aware;
    if (asked == "nccl") return Asked::nccl;
    raise(Errc::invalid_argument, constructor,
          std::string(env_transport) + "='" + asked +
              "' is not a transport; expected one of: auto, staged, gpu-aware, nccl");
}

// Why this rank cannot use NCCL (empty when it can; then `library` is set).
std::string nccl_problem(const Device& device, const nccl::Library*& library) {
    if (device.backend() != Backend::cuda)
        return "it is on an OpenCL device, and NCCL moves CUDA memory only";
    std::string why;
    library = nccl::library(why);
    return library != nullptr ? std::string() : why;
}

// Collective: "" where every rank's `problem` is empty, else the lowest such rank's, named.
std::string first_problem(const CommState& comm, const std::string& problem) {
    struct {
        int bad, rank;
    } mine{problem.empty() ? 0 : 1, comm.rank}, first{0, 0};
    DUALRT_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MAXLOC, comm.headers),
                     "agreeing on the transport");
    if (first.bad == 0) return "";
    std::string text = comm.describe_self() + ": " + problem;
    int length = static_cast<int>(text.size());
    DUALRT_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, first.rank, comm.headers),
                     "agreeing on the transport");
    text.resize(static_cast<std::size_t>(length));
    DUALRT_MPI_CHECK(MPI_Bcast(text.data(), length, MPI_CHAR, first.rank, comm.headers),
                     "agreeing on the transport");
    return text;
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

// Collective: every rank joins one NCCL communicator of all ranks, or every rank throws. A rank
// whose part fails tells the others (on a communicator of its own for the purpose), which abort
// theirs instead of waiting inside NCCL for a rank that never comes.
void start_nccl(CommState& comm, const nccl::Library& nccl) {
    MPI_Comm setup = MPI_COMM_NULL;
    DUALRT_MPI_CHECK(MPI_Comm_dup(comm.headers, &setup), "starting NCCL");
    struct Freed {
        MPI_Comm& comm;
        ~Freed() { MPI_Comm_free(&comm); }
    } freed{setup};
    DUALRT_MPI_CHECK(MPI_Comm_set_errhandler(setup, MPI_ERRORS_RETURN), "starting NCCL");
    struct {
        int ok = 0;
        nccl::UniqueId id{};
    } root;
    if (comm.rank == 0) root.ok = nccl.get_unique_id(&root.id) == nccl::success ? 1 : 0;
    DUALRT_MPI_CHECK(MPI_Bcast(&root, sizeof root, MPI_BYTE, 0, setup), "starting NCCL");
    if (!root.ok)
        raise(Errc::backend_failure, constructor,
              "NCCL could not start: rank 0's ncclGetUniqueId failed");

    std::unique_ptr<NcclComm> all;
    std::string failure;
    int failed_here = 0, received = 0;
    std::string notice;
    std::vector<MPI_Request> told;
    try {
        all = std::make_unique<NcclComm>(nccl, comm.device, comm.size, root.id, comm.rank,
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
    comm.nccl = &nccl;
    comm.nccl_all = std::move(all);
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
    else if (asked == Asked::staged || asked == Asked::gpu_aware)
        problem = std::string(env_transport) + "=" +
                  (asked == Asked::staged ? "staged" : "gpu-aware");
    else
        problem = nccl_problem(comm.device, library);
    std::string not_nccl = first_problem(comm, problem);
    if (not_nccl.empty()) {
        try {
            start_nccl(comm, *library);
            comm.transport = Transport::nccl;
            comm.transport_reason = "NCCL " + library->version_string() +
                                    ": every rank is on a CUDA device and joined it";
            return;
        } catch (const Error& e) {
            if (asked == Asked::nccl) throw;
            not_nccl = "not NCCL: " + e.detail();
        }
    } else {
        not_nccl = "not NCCL, since " + not_nccl;
    }
    const bool gpu_aware = !comm.options.force_staged && asked != Asked::staged &&
                           comm.device.backend() == Backend::cuda && mpi_reads_cuda_memory();
    comm.transport = gpu_aware ? Transport::gpu_aware : Transport::staged;
    comm.transport_reason =
        std::string(gpu_aware ? "GPU-aware: this MPI reads CUDA memory"
                              : comm.device.backend() == Backend::cuda
                                    ? "staged: this MPI does not read CUDA memory"
                                    : "staged: MPI reads no OpenCL memory") +
        "; " + not_nccl;
}

}  // namespace dualrt::mpi::detail
