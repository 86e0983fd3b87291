#include "placement.hpp"

#include "mpi_check.hpp"

#include <string>

namespace dualrt::mpi::detail {

std::size_t device_index_for(int node_rank, int node_size, std::size_t device_count,
                             DeviceSharing sharing, const std::string& what) {
    const char* op = "dualrt::mpi::device_for_rank";
    // `what` names one device ("CUDA device"); counts other than one take the plural.
    const auto plural = [&](std::size_t n) { return std::to_string(n) + " " + what +
                                                    (n == 1 ? "" : "s"); };
    if (device_count == 0) raise(Errc::unavailable, op, "this node has no " + what + "s");
    const auto rank = static_cast<std::size_t>(node_rank);
    if (rank >= device_count && sharing == DeviceSharing::forbid)
        raise(Errc::invalid_argument, op,
              "this node runs " + std::to_string(node_size) + " ranks but has " +
                  plural(device_count) + " (node-local rank " +
                  std::to_string(node_rank) + " has none of its own); expected at most one "
                  "rank per device: start fewer ranks per node, pass DeviceSharing::allow to "
                  "share devices, or set DUALRT_DEVICE per rank");
    return rank % device_count;
}

}  // namespace dualrt::mpi::detail
