// What the MPI samples share: options parsed on every rank but reported by rank 0 alone, the
// rank's device from --backend/--device or the node-local rank, and which rank runs where.
#pragma once

#include "options.hpp"

#include <dualrt/mpi.hpp>

#include <optional>

namespace dualrt::samples {

// args.parse() on every rank, with only rank 0's usage and errors printed.
std::optional<int> parse_on_every_rank(Args& args, int argc, char** argv, int rank);

// --backend and --device, when given, become DUALRT_BACKEND / DUALRT_DEVICE for every rank
// (dualrt::mpi::device_for_rank reads them); then the rank's device.
Device device_of_rank(const Args& args, mpi::DeviceSharing sharing);

// Rank 0 prints one line per rank: its device and how it moves buffers.
void print_placement(const mpi::Communicator& comm);

// main() of an MPI program: MPI initialised (funneled), run(argc, argv, rank, ranks), MPI
// finalised; returns run's code. An exception prints "rank R: error: ..." and aborts the job, so
// that a rank that fails alone cannot leave the others waiting in a collective.
int run_ranks(int argc, char** argv, int (*run)(int argc, char** argv, int rank, int ranks));

}  // namespace dualrt::samples
