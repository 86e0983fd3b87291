// A rank that dies in the middle of a transfer: rank 1 starts receiving a large buffer (in
// pieces, staged, or through NCCL's pipe) and exits without MPI_Finalize; rank 0 is in the
// blocking send. The job must end, not hang: Open MPI ends every rank once one exits without
// finalizing, so the surviving rank is not left waiting for pieces or replies that never come.
// CTest passes once rank 1 has said it dies and the job has ended; a hang fails on the timeout,
// and a send that returns fails on its message.
#include <dualrt/dualrt.hpp>
#include <dualrt/mpi.hpp>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const dualrt::Device device =
        dualrt::mpi::device_for_rank(MPI_COMM_WORLD, dualrt::mpi::DeviceSharing::allow);
    // Small pieces, two in flight: a receive asks for new pieces only in its tests, at most the
    // two in flight per test, so the hundred tests below ask for at most about 200 of the 1,024
    // pieces and the send cannot finish however fast the host is (with the default 4 MiB pieces
    // they sometimes took all sixteen).
    dualrt::mpi::CommunicatorOptions options;
    options.piece_bytes = std::size_t(64) << 10;
    options.ipc_piece_bytes = std::size_t(64) << 10;
    options.pieces_in_flight = 2;
    dualrt::mpi::Communicator comm(device, MPI_COMM_WORLD, options);
    auto queue = device.create_queue();
    // 64 MiB: many pieces on the staged and IPC paths, longer than a moment on any link.
    auto buffer = device.alloc<float>(std::size_t(16) << 20);
    queue.fill(buffer, 1.0f, dualrt::Sync::blocking);
    if (rank == 1) {
        auto receive = comm.irecv(queue, buffer, 0, 5);
        for (int i = 0; i < 100; ++i) receive.test();  // the header in, some pieces on the way
        std::printf("rank 1: dying in the middle of a receive\n");
        std::fflush(stdout);
        std::_Exit(3);
    }
    comm.send(queue, buffer, 1, 5);
    std::printf("rank %d: the send returned, which a dead receiver cannot allow\n", rank);
    MPI_Finalize();
    return 0;
}
