#include "mpi_sample.hpp"

#include <dualrt/runtime.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace dualrt::samples {

std::optional<int> parse_on_every_rank(Args& args, int argc, char** argv, int rank) {
    std::ostringstream quiet;
    auto* err = std::cerr.rdbuf();
    auto* out = std::cout.rdbuf();
    if (rank != 0) {
        std::cerr.rdbuf(quiet.rdbuf());
        std::cout.rdbuf(quiet.rdbuf());
    }
    const auto exit_code = args.parse(argc, argv);
    std::cerr.rdbuf(err);
    std::cout.rdbuf(out);
    return exit_code;
}

Device device_of_rank(const Args& args, mpi::DeviceSharing sharing) {
    if (args.given("backend")) setenv(env_backend, args.text("backend").c_str(), 1);
    if (args.given("device")) setenv(env_device, args.text("device").c_str(), 1);
    return mpi::device_for_rank(MPI_COMM_WORLD, sharing);
}

void print_placement(const mpi::Communicator& comm) {
    const Device& device = comm.device();
    char line[256] = {};
    std::snprintf(line, sizeof line, "rank %d: %s device %d '%s', %s transfers", comm.rank(),
                  to_string(device.backend()), device.info().index, device.name().c_str(),
                  mpi::to_string(comm.transport()));
    const bool root = comm.rank() == 0;
    std::vector<char> lines(root ? sizeof line * static_cast<std::size_t>(comm.size()) : 0);
    MPI_Gather(line, sizeof line, MPI_CHAR, lines.data(), sizeof line, MPI_CHAR, 0,
               comm.native());
    if (!root) return;
    for (int r = 0; r < comm.size(); ++r)
        std::cout << &lines[static_cast<std::size_t>(r) * sizeof line] << "\n";
    std::cout << "transport: " << comm.transport_reason() << "\n";
}

std::vector<std::size_t> parse_sizes(const std::string& text, std::size_t least,
                                     std::size_t most) {
    std::vector<std::size_t> sizes;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto bytes = parse_bytes(item);
        if (!bytes || *bytes < least || *bytes > most)
            throw std::invalid_argument("--sizes: '" + item + "' is not a size from " +
                                        format_bytes(least) + " to " + format_bytes(most));
        sizes.push_back(*bytes);
    }
    return sizes;
}

double median_seconds(MPI_Comm comm, int repetitions, const std::function<void()>& body) {
    std::vector<double> seconds;
    for (int r = 0; r < repetitions; ++r) {
        MPI_Barrier(comm);
        const double start = MPI_Wtime();
        body();
        double elapsed = MPI_Wtime() - start;
        MPI_Allreduce(MPI_IN_PLACE, &elapsed, 1, MPI_DOUBLE, MPI_MAX, comm);
        seconds.push_back(elapsed);
    }
    std::sort(seconds.begin(), seconds.end());
    return seconds[seconds.size() / 2];
}

int run_ranks(int argc, char** argv, int (*run)(int argc, char** argv, int rank, int ranks)) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int code = 0;
    try {
        code = run(argc, argv, rank, ranks);
    } catch (const std::exception& e) {
        std::cerr << "rank " << rank << ": error: " << e.what() << "\n";
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return code;
}

}  // namespace dualrt::samples
