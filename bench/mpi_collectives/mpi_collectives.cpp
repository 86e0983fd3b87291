// mpi_collectives: broadcast and allreduce (float sum) of device buffers over every rank through
// dualrt::mpi, in bus bandwidth as NVIDIA's nccl-tests count it, so the two compare directly:
// broadcast moves the buffer once (bus = algorithm bandwidth), allreduce 2(n-1)/n times. Each
// size's result is checked against the host once. Timed as nccl-tests times: a batch of calls
// back to back, then the queue finished, per call.
//   mpirun -np 4 mpi_collectives --sizes 16M,256M,1G
#include "csv.hpp"
#include "options.hpp"
#include "mpi_sample.hpp"
#include "table.hpp"

#include <dualrt/dualrt.hpp>
#include <dualrt/mpi.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace {

using dualrt::samples::fixed;

// Rank r's input: element i is (r + 1) + (i % 97), so every sum is exact in float.
float input(int rank, std::size_t i) { return static_cast<float>(rank + 1 + int(i % 97)); }

int run(int argc, char** argv, int rank, int ranks) {
    dualrt::samples::Args args(
        "mpi_collectives",
        "Broadcast and allreduce of device buffers over every rank through dualrt::mpi, in bus "
        "bandwidth as nccl-tests counts it. Start the ranks with mpirun.",
        dualrt::samples::SharedOptions{false, false});
    args.add_text("sizes", "LIST", "buffer sizes (K, M, G suffixes)", "16M,256M");
    args.add_integer("repetitions", "N", "timed batches per size and operation (median)", 5, 1,
                     1000);
    args.add_integer("batch", "N", "calls per timed batch, back to back", 20, 1, 1000);
    args.add_integer("warmup", "N", "untimed calls per size and operation first", 3, 0, 100);
    args.add_flag("share-devices", "let ranks share a device (a node with fewer GPUs)");
    if (const auto code = dualrt::samples::parse_on_every_rank(args, argc, argv, rank))
        return *code;
    auto sizes = dualrt::samples::parse_sizes(args.text("sizes"), sizeof(float),
                                              std::size_t(4) << 30);
    for (auto& bytes : sizes) bytes = bytes / sizeof(float) * sizeof(float);
    const int repetitions = static_cast<int>(args.integer("repetitions"));
    const int warmup = static_cast<int>(args.integer("warmup"));
    const int batch = static_cast<int>(args.integer("batch"));
    const dualrt::Device device = dualrt::samples::device_of_rank(
        args, args.flag("share-devices") ? dualrt::mpi::DeviceSharing::allow
                                         : dualrt::mpi::DeviceSharing::forbid);
    dualrt::mpi::Communicator comm(device, MPI_COMM_WORLD);
    dualrt::samples::print_placement(comm);
    auto queue = device.create_queue();
    const double n = ranks;

    dualrt::samples::Table table({"bytes", "broadcast GB/s (bus)", "allreduce GB/s (bus)",
                                  "allreduce GB/s (algorithm)"});
    bool all_correct = true;
    for (const std::size_t bytes : sizes) {
        const std::size_t count = bytes / sizeof(float);
        std::vector<float> mine(count);
        for (std::size_t i = 0; i < count; ++i) mine[i] = input(rank, i);
        auto buffer = device.alloc<float>(count);
        queue.copy(buffer, mine, dualrt::Sync::blocking);

        // Checked once: every rank gets rank 0's buffer, then the sum of every rank's.
        bool correct = true;
        std::vector<float> got(count);
        comm.broadcast(queue, buffer, 0);
        queue.copy(got, buffer, dualrt::Sync::blocking);
        for (std::size_t i = 0; i < count && correct; ++i) correct = got[i] == input(0, i);
        queue.copy(buffer, mine, dualrt::Sync::blocking);
        comm.allreduce(queue, buffer, dualrt::mpi::ReduceOp::sum);
        queue.copy(got, buffer, dualrt::Sync::blocking);
        for (std::size_t i = 0; i < count && correct; ++i) {
            float sum = 0.0f;
            for (int r = 0; r < ranks; ++r) sum += input(r, i);
            correct = got[i] == sum;
        }
        int everywhere = correct ? 1 : 0;
        MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        all_correct = all_correct && everywhere == 1;

        // Timed: the values grow with repeated sums, which costs nothing extra.
        const auto broadcast = [&] { comm.broadcast(queue, buffer, 0); };
        const auto allreduce = [&] { comm.allreduce(queue, buffer, dualrt::mpi::ReduceOp::sum); };
        for (int w = 0; w < warmup; ++w) broadcast(), allreduce();
        queue.finish();
        // Per call: each timed batch ends with the queue finished, since through NCCL the
        // collectives return before the device is done.
        const auto per_call = [&](const std::function<void()>& call) {
            return dualrt::samples::median_seconds(MPI_COMM_WORLD, repetitions, [&] {
                       for (int c = 0; c < batch; ++c) call();
                       queue.finish();
                   }) /
                   batch;
        };
        const double broadcast_s = per_call(broadcast);
        const double allreduce_s = per_call(allreduce);
        const double gb = static_cast<double>(bytes) / 1e9;
        const double allreduce_algorithm = gb / allreduce_s;
        table.add({dualrt::samples::format_bytes(bytes) + (everywhere ? "" : " WRONG"),
                   fixed(gb / broadcast_s, 2),
                   fixed(allreduce_algorithm * 2.0 * (n - 1.0) / n, 2),
                   fixed(allreduce_algorithm, 2)});
    }
    if (rank == 0) {
        std::cout << ranks << " ranks, " << dualrt::mpi::to_string(comm.transport())
                  << "; per call, median of " << repetitions << " batches of " << batch
                  << " after " << warmup << " warm-up calls\n";
        table.print(std::cout);
        std::cout << (all_correct ? "every result checked against the host\n"
                                  : "MISMATCH: a result was wrong\n");
    }
    return all_correct ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return dualrt::samples::run_ranks(argc, argv, run); }
