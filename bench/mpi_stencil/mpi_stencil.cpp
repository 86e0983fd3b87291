// mpi_stencil: a 2-D Jacobi (heat) grid split into row blocks, one per MPI rank, each on its own
// device (dualrt::mpi::device_for_rank), halo rows exchanged every step through
// dualrt::mpi::Communicator while the interior rows are computed. Prints the time per step, the
// share of the exchange hidden behind the interior sweep, and strong and weak scaling; checks the
// distributed result bit for bit against one rank alone (and that against the host on small
// grids). Run with mpirun, e.g.  mpirun -np 2 mpi_stencil --width 16384 --height 16384
#include "options.hpp"
#include "csv.hpp"
#include "jacobi_block.hpp"
#include "mpi_sample.hpp"
#include "table.hpp"

#include <dualrt/dualrt.hpp>
#include <dualrt/mpi.hpp>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>

namespace {

using mpi_stencil::Grid;
using mpi_stencil::JacobiBlock;
using mpi_stencil::StepMode;

struct Setup {
    int rank = 0, ranks = 1;
    int warmup = 3, steps = 50, repetitions = 3;
};

// Milliseconds per step: the median over `repetitions` batches of `steps` steps, after `warmup`
// steps, each batch timed from a barrier to the slowest rank's end.
double time_steps(JacobiBlock& block, StepMode mode, MPI_Comm comm, const Setup& setup) {
    for (int s = 0; s < setup.warmup; ++s) block.step(mode);
    block.finish();
    std::vector<double> per_step;
    for (int r = 0; r < setup.repetitions; ++r) {
        MPI_Barrier(comm);
        const double start = MPI_Wtime();
        for (int s = 0; s < setup.steps; ++s) block.step(mode);
        block.finish();
        double seconds = MPI_Wtime() - start;
        MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
        per_step.push_back(seconds * 1e3 / setup.steps);
    }
    std::sort(per_step.begin(), per_step.end());
    return per_step[per_step.size() / 2];
}

// Every rank's rows, gathered on rank 0 in order (others get an empty vector).
std::vector<float> gather_rows(const std::vector<float>& mine, const Setup& setup) {
    const int count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(setup.ranks)), offsets(counts.size());
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<float> all;
    if (setup.rank == 0) {
        int total = 0;
        for (std::size_t r = 0; r < counts.size(); ++r) {
            offsets[r] = total;
            total += counts[r];
        }
        all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(mine.data(), count, MPI_FLOAT, all.data(), counts.data(), offsets.data(),
                MPI_FLOAT, 0, MPI_COMM_WORLD);
    return all;
}

std::size_t count_differences(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return std::max(a.size(), b.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) ++differ;
    return differ;
}

using dualrt::samples::fixed;

int run(int argc, char** argv, Setup& setup) {
    dualrt::samples::Args args(
        "mpi_stencil",
        "A 2-D Jacobi grid in row blocks over MPI ranks (one device each), halo rows exchanged "
        "every step while the interior is computed. Start with mpirun.");
    args.add_integer("width", "N", "grid columns", 4096, 3, 1 << 20);
    args.add_integer("height", "N", "grid rows (split over the ranks; per rank for weak scaling)",
                     4096, 1, 1 << 22);
    args.add_integer("steps", "N", "timed steps per run", 50, 1, 1000000);
    args.add_integer("warmup", "N", "untimed steps before each timed run", 3, 0, 1000);
    args.add_integer("repetitions", "N", "timed batches of --steps per run (median)", 3, 1, 100);
    args.add_flag("share-devices", "let ranks of a node share a device (more ranks than devices)");
    args.add_flag("no-weak", "skip the weak-scaling run (each rank a full --height grid)");
    const auto exit_code = dualrt::samples::parse_on_every_rank(args, argc, argv, setup.rank);
    if (exit_code) return *exit_code;
    setup.steps = static_cast<int>(args.integer("steps"));
    setup.warmup = static_cast<int>(args.integer("warmup"));
    setup.repetitions = static_cast<int>(args.integer("repetitions"));

    const dualrt::Device device = dualrt::samples::device_of_rank(
        args, args.flag("share-devices") ? dualrt::mpi::DeviceSharing::allow
                                         : dualrt::mpi::DeviceSharing::forbid);
    dualrt::mpi::Communicator comm(device);
    const bool root = setup.rank == 0;
    dualrt::samples::print_placement(comm);

    Grid grid;
    grid.width = static_cast<std::size_t>(args.integer("width"));
    grid.rows = static_cast<std::size_t>(args.integer("height"));
    grid.seed = std::random_device{}();
    MPI_Bcast(&grid.seed, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
    const int total_steps = setup.warmup + setup.repetitions * setup.steps;

    // One rank alone on the whole grid (rank 0; the others wait): the reference result and the
    // baseline of strong scaling.
    MPI_Comm alone = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, root ? 0 : MPI_UNDEFINED, 0, &alone);
    double single_ms = 0.0;
    std::vector<float> single_rows;
    if (root) {
        JacobiBlock block(device, nullptr, grid, 0, 1);
        single_ms = time_steps(block, StepMode::overlapped, alone, setup);
        single_rows = block.rows();
        MPI_Comm_free(&alone);
    }

    // Every rank: the overlapped run (checked), then compute alone and exchange alone.
    double overlapped_ms = 0.0, compute_ms = 0.0, exchange_ms = 0.0;
    std::vector<float> distributed;
    {
        JacobiBlock block(device, &comm, grid, setup.rank, setup.ranks);
        overlapped_ms =
            time_steps(block, StepMode::overlapped, MPI_COMM_WORLD, setup);
        distributed = gather_rows(block.rows(), setup);
        compute_ms =
            time_steps(block, StepMode::compute_only, MPI_COMM_WORLD, setup);
        exchange_ms =
            time_steps(block, StepMode::exchange_only, MPI_COMM_WORLD, setup);
    }

    // Weak scaling: every rank holds --height rows, the grid grows with the ranks.
    double weak_ms = 0.0;
    if (!args.flag("no-weak") && setup.ranks > 1) {
        Grid wide = grid;
        wide.rows = grid.rows * static_cast<std::size_t>(setup.ranks);
        JacobiBlock block(device, &comm, wide, setup.rank, setup.ranks);
        weak_ms = time_steps(block, StepMode::overlapped, MPI_COMM_WORLD, setup);
    }

    int failed = 0;
    if (root) {
        const std::size_t differ = count_differences(distributed, single_rows);
        std::cout << "grid " << grid.width << " x " << grid.rows << " floats ("
                  << fixed(static_cast<double>(grid.width * grid.rows * 4) / (1 << 20), 1)
                  << " MiB), " << setup.ranks << " ranks; per run the median of "
                  << setup.repetitions << " batches of " << setup.steps << " steps, after "
                  << setup.warmup << "\n";
        std::cout << (differ == 0 ? "the distributed grid equals one rank's bit for bit after "
                                  : "MISMATCH: ")
                  << (differ == 0 ? std::to_string(total_steps) + " steps\n"
                                  : std::to_string(differ) + " of " +
                                        std::to_string(single_rows.size()) +
                                        " values differ from one rank's\n");
        failed |= differ != 0;
        if (grid.width * grid.rows * static_cast<std::size_t>(total_steps) <= 200000000) {
            const std::size_t host_differ =
                count_differences(single_rows, mpi_stencil::host_reference(grid, total_steps));
            std::cout << (host_differ == 0 ? "one rank's grid equals the host's bit for bit\n"
                                           : "MISMATCH: one rank's grid differs from the host's "
                                             "in " + std::to_string(host_differ) + " values\n");
            failed |= host_differ != 0;
        }
        // Hidden share: the part of the exchange's own time that the overlapped step does not
        // add to the compute-only step.
        const double exposed = std::max(0.0, overlapped_ms - compute_ms);
        const double hidden = exchange_ms > 0.0
                                  ? std::clamp(1.0 - exposed / exchange_ms, 0.0, 1.0)
                                  : 1.0;
        dualrt::samples::Table table({"run", "ms per step", "note"});
        table.add({"1 rank, whole grid", fixed(single_ms, 4), "strong-scaling baseline"});
        table.add({std::to_string(setup.ranks) + " ranks, overlapped", fixed(overlapped_ms, 4),
                   "strong scaling " + fixed(single_ms / overlapped_ms, 3) + "x"});
        table.add({std::to_string(setup.ranks) + " ranks, compute only", fixed(compute_ms, 4),
                   "no exchange"});
        table.add({std::to_string(setup.ranks) + " ranks, exchange only", fixed(exchange_ms, 4),
                   "no kernels"});
        if (weak_ms > 0.0)
            table.add({std::to_string(setup.ranks) + " ranks, " + std::to_string(grid.rows) +
                           " rows each",
                       fixed(weak_ms, 4),
                       "weak-scaling efficiency " + fixed(single_ms / weak_ms, 3)});
        table.print(std::cout);
        if (setup.ranks == 1)
            std::cout << "one rank: no halo exchange to hide\n";
        else
            std::cout << "exchange hidden behind the interior: " << fixed(100.0 * hidden, 1)
                      << "% (exchange " << fixed(exchange_ms, 4) << " ms, exposed "
                      << fixed(exposed, 4) << " ms per step)\n";
    }
    MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return failed;
}

}  // namespace

int main(int argc, char** argv) {
    return dualrt::samples::run_ranks(argc, argv, [](int count, char** values, int rank,
                                                      int ranks) {
        Setup setup;
        setup.rank = rank;
        setup.ranks = ranks;
        return run(count, values, setup);
    });
}
