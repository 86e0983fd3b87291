// Which device index a rank takes from its node-local rank: kept apart from MPI so that the rule
// and its error are tested without launching ranks.
#pragma once

#include <dualrt/mpi.hpp>

#include <cstddef>

namespace dualrt::mpi::detail {

// The device index of node-local rank `node_rank` of `node_size` ranks on a node with
// `device_count` devices (`what` names one in the error, e.g. "CUDA device").
// Throws Errc::unavailable for no devices, Errc::invalid_argument for more ranks than devices
// unless sharing is allowed.
std::size_t device_index_for(int node_rank, int node_size, std::size_t device_count,
                             DeviceSharing sharing, const std::string& what);

}  // namespace dualrt::mpi::detail
