// mpi_bandwidth: a device buffer sent from rank 0's device to rank 1's by dualrt::mpi (through
// NCCL, shared device memory (IPC), GPU-aware MPI or pinned pieces: the communicator's
// transport), beside what bounds a staged transfer in the same run: pinned device-to-host on the
// sender, pinned host-to-device on the receiver (dualrt HostBuffer copies, at the driver's rate),
// and MPI's own host-to-host rate between pinned buffers. Each timed sample is one transfer, or
// --back-to-back N started together, as NVIDIA's nccl-tests time their iterations (launch and
// handshake latencies then overlap, as they do in an application that keeps several in flight).
// Every transfer is checked once against the sent bytes.
//   mpirun -np 2 mpi_bandwidth --sizes 1M,16M,256M,1G
#include "options.hpp"
#include "csv.hpp"
#include "mpi_sample.hpp"
#include "table.hpp"

#include <dualrt/dualrt.hpp>
#include <dualrt/mpi.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using dualrt::samples::fixed;

double gigabytes_per_second(std::size_t bytes, double seconds) {
    return seconds > 0.0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

int run(int argc, char** argv, int rank, int ranks) {
    dualrt::samples::Args args(
        "mpi_bandwidth",
        "A device buffer from rank 0 to rank 1 through dualrt::mpi, beside pinned D2H and H2D and "
        "MPI's host-to-host rate in the same run. Start 2 ranks with mpirun.",
        dualrt::samples::SharedOptions{false, false});
    args.add_text("sizes", "LIST", "buffer sizes (K, M, G suffixes)", "1M,16M,256M");
    args.add_integer("repetitions", "N", "timed transfers per size (median)", 5, 1, 1000);
    args.add_bytes("piece", "BYTES", "staged piece size", "4M");
    args.add_integer("in-flight", "N", "staged pieces (and IPC slots) in flight per transfer", 3,
                     2, 64);
    args.add_bytes("ipc-piece", "BYTES", "IPC piece size (shared slots)", "64M");
    args.add_integer("back-to-back", "N",
                     "dualrt transfers per timed sample, all started before any is waited for "
                     "(the rate is over all of them), as nccl-tests times its iterations",
                     1, 1, 1000);
    args.add_flag("share-devices", "let both ranks use one device (a node with one GPU)");
    if (const auto code = dualrt::samples::parse_on_every_rank(args, argc, argv, rank))
        return *code;
    if (ranks != 2) {
        if (rank == 0) std::cerr << "error: mpi_bandwidth needs exactly 2 ranks, not " << ranks
                                 << " (mpirun -np 2)\n";
        return 2;
    }
    const auto sizes =
        dualrt::samples::parse_sizes(args.text("sizes"), 1, (std::size_t(1) << 31) - 1);
    const int repetitions = static_cast<int>(args.integer("repetitions"));
    const int back_to_back = static_cast<int>(args.integer("back-to-back"));
    const dualrt::Device device = dualrt::samples::device_of_rank(
        args, args.flag("share-devices") ? dualrt::mpi::DeviceSharing::allow
                                         : dualrt::mpi::DeviceSharing::forbid);
    dualrt::mpi::CommunicatorOptions options;
    options.piece_bytes = args.bytes("piece");
    options.pieces_in_flight = static_cast<std::size_t>(args.integer("in-flight"));
    options.ipc_piece_bytes = args.bytes("ipc-piece");
    dualrt::mpi::Communicator comm(device, MPI_COMM_WORLD, options);
    dualrt::samples::print_placement(comm);
    auto queue = device.create_queue();
    const bool sender = rank == 0;

    dualrt::samples::Table table({"bytes", "D2H (rank 0)", "H2D (rank 1)", "MPI host",
                                  "dualrt", "vs slower copy", "vs MPI host"});
    bool all_correct = true;
    for (const std::size_t bytes : sizes) {
        std::uint32_t seed = std::random_device{}();
        MPI_Bcast(&seed, 1, MPI_UINT32_T, 0, MPI_COMM_WORLD);
        std::vector<std::uint8_t> pattern(bytes);
        std::mt19937 engine(seed);
        for (auto& b : pattern) b = static_cast<std::uint8_t>(engine());

        auto on_device = device.alloc<std::uint8_t>(bytes);
        auto pinned = device.alloc_host<std::uint8_t>(bytes);
        std::copy(pattern.begin(), pattern.end(), pinned.begin());
        queue.copy(on_device, pinned, dualrt::Sync::blocking);

        // The copies that bound a staged transfer, each rank on its own side.
        const double d2h = dualrt::samples::median_seconds(MPI_COMM_WORLD, repetitions, [&] {
            if (sender) queue.copy(pinned, on_device, dualrt::Sync::blocking);
        });
        const double h2d = dualrt::samples::median_seconds(MPI_COMM_WORLD, repetitions, [&] {
            if (!sender) queue.copy(on_device, pinned, dualrt::Sync::blocking);
        });
        // MPI between pinned host buffers: the link between the ranks.
        const double host = dualrt::samples::median_seconds(MPI_COMM_WORLD, repetitions, [&] {
            if (sender)
                MPI_Send(pinned.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            else
                MPI_Recv(pinned.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        });
        // dualrt: device to device; the receiver's recv returns with the data on its device.
        if (!sender) queue.fill(on_device, std::uint8_t(0xA5), dualrt::Sync::blocking);
        // One untimed transfer first: the first between two ranks may set up the transport.
        if (sender) comm.send(queue, on_device, 1, 1);
        else comm.recv(queue, on_device, 0, 1);
        if (!sender) queue.fill(on_device, std::uint8_t(0xA5), dualrt::Sync::blocking);
        const double staged = dualrt::samples::median_seconds(MPI_COMM_WORLD, repetitions, [&] {
            std::vector<dualrt::mpi::Request> transfers;
            for (int t = 0; t < back_to_back; ++t)
                transfers.push_back(sender ? comm.isend(queue, on_device, 1, 1)
                                           : comm.irecv(queue, on_device, 0, 1));
            for (dualrt::mpi::Request& transfer : transfers) transfer.wait().wait();
        }) / back_to_back;
        int correct = 1;
        if (!sender) {
            std::vector<std::uint8_t> got(bytes);
            queue.copy(got, on_device, dualrt::Sync::blocking);
            correct = got == pattern ? 1 : 0;
        }
        MPI_Allreduce(MPI_IN_PLACE, &correct, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        all_correct = all_correct && correct == 1;

        const double d2h_rate = gigabytes_per_second(bytes, d2h);
        const double h2d_rate = gigabytes_per_second(bytes, h2d);
        const double host_rate = gigabytes_per_second(bytes, host);
        const double staged_rate = gigabytes_per_second(bytes, staged);
        table.add({dualrt::samples::format_bytes(bytes), fixed(d2h_rate, 2), fixed(h2d_rate, 2),
                   fixed(host_rate, 2), fixed(staged_rate, 2) + (correct ? "" : " WRONG"),
                   fixed(staged_rate / std::min(d2h_rate, h2d_rate), 3),
                   fixed(staged_rate / host_rate, 3)});
    }
    if (rank == 0) {
        const bool ipc = comm.transport() == dualrt::mpi::Transport::ipc;
        std::cout << "GB/s, median of " << repetitions;
        if (back_to_back > 1)
            std::cout << "; dualrt " << back_to_back << " transfers back to back per sample";
        std::cout << "; dualrt pieces of "
                  << dualrt::samples::format_bytes(ipc ? options.ipc_piece_bytes
                                                       : options.piece_bytes)
                  << ", " << options.pieces_in_flight << " in flight\n";
        table.print(std::cout);
        std::cout << (all_correct ? "every transfer arrived intact\n"
                                  : "MISMATCH: a transfer arrived wrong\n");
    }
    return all_correct ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return dualrt::samples::run_ranks(argc, argv, run); }
