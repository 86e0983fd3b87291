// Which transport a Communicator uses, and why: NCCL where every rank can use it, else device
// memory shared between the ranks' processes where every rank can (IPC), else GPU-aware MPI
// where this rank's MPI reads CUDA memory, else staging through pinned host memory.
// DUALRT_MPI_TRANSPORT (auto | staged | gpu-aware | nccl | ipc) and
// CommunicatorOptions::force_staged narrow the choice; a transport asked for by name that cannot
// be used is an error.
#include "agreement.hpp"
#include "comm_state.hpp"
#include "mpi_check.hpp"
#include "nccl_start.hpp"

#include <dualrt/runtime.hpp>
#include <dualrt/shared_memory.hpp>

#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

namespace dualrt::mpi::detail {
namespace {

inline constexpr const char* env_transport = "DUALRT_MPI_TRANSPORT";
inline constexpr const char* constructor = "dualrt::mpi::Communicator";

enum class Asked { automatic, staged, gpu_aware, nccl, ipc };

// DUALRT_MPI_TRANSPORT's values, in the order the error message lists them.
constexpr std::pair<const char*, Asked> transport_names[] = {
    {"auto", Asked::automatic}, {"staged", Asked::staged}, {"gpu-aware", Asked::gpu_aware},
    {"nccl", Asked::nccl},      {"ipc", Asked::ipc}};

const char* asked_name(Asked asked) {
    for (const auto& [name, value] : transport_names)
        if (value == asked) return name;
    return "?";
}

Asked asked_transport() {
    const char* value = std::getenv(env_transport);
    const std::string asked = value != nullptr && *value != '\0' ? value : "auto";
    std::string known;
    for (const auto& [name, transport] : transport_names) {
        if (asked == name) return transport;
        known += known.empty() ? name : std::string(", ") + name;
    }
    raise(Errc::invalid_argument, constructor,
          std::string(env_transport) + "='" + asked + "' is not a transport; expected one of: " +
              known);
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
