// Starting NCCL for a communicator whose every rank can use it (transport.cpp decides that):
// proving that it starts on every rank, then opening the communicators that carry the data.
#pragma once

#include "comm_state.hpp"
#include "nccl_api.hpp"

namespace dualrt::mpi::detail {

// Communicators of at most this many ranks open a pipe per ordered pair of ranks for sends and
// receives through NCCL (2 (n - 1) NCCL communicators on each rank); larger ones send and
// receive as without NCCL and use it for the collectives.
inline constexpr int max_pipe_ranks = 16;

// Collective: proves that NCCL starts on every rank, then opens the communicators that carry the
// data; throws on every rank where NCCL does not start.
void start_nccl(CommState& comm, const nccl::Library& nccl);

}  // namespace dualrt::mpi::detail
