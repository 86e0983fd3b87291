// What the MPI samples share: options parsed on every rank but reported by rank 0 alone, the
// rank's device from --backend/--device or the node-local rank, and which rank runs where.
#pragma once

#include "options.hpp"

#include <dualrt/mpi.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dualrt::samples {

// args.parse() on every rank, with only rank 0's usage and errors printed.
std::optional<int> parse_on_every_rank(Args& args, int argc, char** argv, int rank);

// --backend and --device, when given, become DUALRT_BACKEND / DUALRT_DEVICE for every rank
// (dualrt::mpi::device_for_rank reads them); then the rank's device.
Device device_of_rank(const Args& args, mpi::DeviceSharing sharing);

// Rank 0 prints one line per rank: its device and how it moves buffers.
void print_placement(const mpi::Communicator& comm);

// "1M,16M,256M" -> sizes in bytes, each from `least` to `most`; std::invalid_argument naming the
// item and the range otherwise.
std::vector<std::size_t> parse_sizes(const std::string& text, std::size_t least, std::size_t most);

// Median seconds of `body` over `repetitions` runs, each timed from a common barrier to the
// slowest rank's end. Collective over `comm`.
double median_seconds(MPI_Comm comm, int repetitions, const std::function<void()>& body);

// main() of an MPI program: MPI initialised (funneled), run(argc, argv, rank, ranks), MPI
// finalised; returns run's code. An exception prints "rank R: error: ..." and aborts the job, so
// that a rank that fails alone cannot leave the others waiting in a collective.
int run_ranks(int argc, char** argv, int (*run)(int argc, char** argv, int rank, int ranks));

}  // namespace dualrt::samples
