// device_for_rank: the node-local rank indexes the devices of the chosen backend, unless
// DUALRT_DEVICE names a device for every rank itself.
#include "agreement.hpp"
#include "mpi_check.hpp"
#include "placement.hpp"

#include <dualrt/mpi.hpp>
#include <dualrt/runtime.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace dualrt::mpi {
namespace {

int node_rank_of(MPI_Comm comm, int& node_size) {
    int world_rank = 0;
    DUALRT_MPI_CHECK(MPI_Comm_rank(comm, &world_rank), "finding this rank");
    MPI_Comm node = MPI_COMM_NULL;
    DUALRT_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL,
                                         &node),
                     "grouping the ranks of this node");
    int node_rank = 0;
    const int rank_rc = MPI_Comm_rank(node, &node_rank);
    const int size_rc = MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    DUALRT_MPI_CHECK(rank_rc, "the rank within this node");
    DUALRT_MPI_CHECK(size_rc, "the ranks of this node");
    return node_rank;
}

// The devices the node-local rank indexes: those of the backend dualrt::select() picks for this
// selection (which also checks every DUALRT_* value), and with "auto" on OpenCL only its GPUs
// when it picked one, as select() prefers them.
std::vector<Device> candidates(const Selection& selection, std::string& what) {
    const Device first = select(selection);
    if (first.backend() == Backend::cuda) {
        what = "CUDA device";
        return devices(Backend::cuda);
    }
    std::vector<Device> list = devices(Backend::opencl);
    if (selection.backend == "auto" && first.info().type == DeviceType::gpu) {
        std::vector<Device> gpus;
        for (const auto& device : list)
            if (device.info().type == DeviceType::gpu) gpus.push_back(device);
        what = "OpenCL GPU";
        return gpus;
    }
    what = "OpenCL device";
    return list;
}

}  // namespace

Device device_for_rank(MPI_Comm comm, DeviceSharing sharing) {
    const char* op = "dualrt::mpi::device_for_rank";
    detail::require_mpi(op);
    if (comm == MPI_COMM_NULL) detail::raise(Errc::invalid_argument, op, "comm is MPI_COMM_NULL");
    int node_size = 1;
    const int node_rank = node_rank_of(comm, node_size);  // collective: before any early return
    // Collective: a rank that finds no device of its own makes every rank throw, so none goes on
    // into calls the failing rank never joins.
    Device device;
    detail::agree(
        comm, op, "",
        [&] {
            const Selection selection = Selection::from_environment();
            if (!selection.device.empty()) {
                device = select(selection);
                return;
            }
            std::string what;
            const std::vector<Device> list = candidates(selection, what);
            device = list[detail::device_index_for(node_rank, node_size, list.size(), sharing,
                                                   what)];
        },
        {});
    return device;
}

}  // namespace dualrt::mpi
