// mpi_halo: a 1-D heat equation split over MPI ranks, each rank's part on its own device. Every
// step each rank sends its first and last value to its neighbours and receives theirs into its
// halo cells, device buffer to device buffer through dualrt::mpi, then sweeps its part. Every
// rank checks its part against the whole rod swept on the host. Run with
// `mpirun -np 2 mpi_halo`; ranks on one node take devices 0, 1, ... of the backend
// (without a GPU, POCL_DEVICES="pthread pthread" gives two PoCL devices).
#include <dualrt/dualrt.hpp>
#include <dualrt/mpi.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

// The sweep, compiled at run time for the device's backend. Cell 0 and cell n + 1 are halo
// cells: a neighbour's value, or at the rod's ends a fixed temperature. The weights are powers
// of two, so the host's sweep below computes the same bits.
const dualrt::KernelSource heat_source{
    "mpi_halo",
    "__kernel void heat_1d(__global const float* in, __global float* out, uint n) {\n"
    "    const size_t i = get_global_id(0) + 1;\n"
    "    if (i <= n) out[i] = ((in[i - 1] + in[i + 1]) + 2.0f * in[i]) * 0.25f;\n"
    "}\n",
    "#include \"dualrt_kernel.cuh\"\n"
    "extern \"C\" __global__ void heat_1d(const float* in, float* out, uint n) {\n"
    "    const size_t i = get_global_id(0) + 1;\n"
    "    if (i <= n) out[i] = ((in[i - 1] + in[i + 1]) + 2.0f * in[i]) * 0.25f;\n"
    "}\n"};

void sweep_on_host(std::vector<float>& rod, int steps) {
    std::vector<float> next = rod;
    for (int step = 0; step < steps; ++step) {
        for (std::size_t i = 1; i + 1 < rod.size(); ++i)
            next[i] = ((rod[i - 1] + rod[i + 1]) + 2.0f * rod[i]) * 0.25f;
        std::swap(rod, next);
    }
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int failed = 0;
    try {
        dualrt::Device device = dualrt::mpi::device_for_rank();  // collective
        dualrt::mpi::Communicator comm(device);                  // collective
        const int rank = comm.rank(), ranks = comm.size();
        const std::uint32_t cells = 100'000;  // this rank's own cells
        const int steps = 20;

        // One random rod for all ranks: rank 0 picks the seed, every rank draws the same values.
        unsigned seed = std::random_device{}();
        MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, comm.native());
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> dist(0.0f, 100.0f);
        std::vector<float> rod(std::size_t(cells) * ranks + 2);  // with the two fixed ends
        for (auto& v : rod) v = dist(rng);

        // This rank's cells and the two cells beside them, in both buffers of the ping-pong, so
        // that the rod's fixed ends are in place whichever buffer a step reads.
        const std::vector<float> mine(rod.begin() + std::ptrdiff_t(cells) * rank,
                                      rod.begin() + std::ptrdiff_t(cells) * (rank + 1) + 2);
        dualrt::Queue queue = device.create_queue();
        auto current = device.alloc<float>(cells + 2), next = device.alloc<float>(cells + 2);
        queue.copy(current, mine);
        queue.copy(next, mine);
        device.load_sources(heat_source);
        const dualrt::Kernel heat = device.kernel("heat_1d");

        const int left = rank - 1, right = rank + 1;  // no neighbour past either end of the rod
        constexpr int to_right = 0, to_left = 1;      // tags: which way a value travels
        const double start = MPI_Wtime();
        for (int step = 0; step < steps; ++step) {
            // Each send follows the sweep enqueued on `queue` before it; each receive lands in
            // a halo cell that the next sweep reads, so the queue waits for it first.
            std::vector<dualrt::mpi::Request> requests;
            if (left >= 0) {
                requests.push_back(comm.irecv(queue, current.view(0, 1), left, to_right));
                requests.push_back(comm.isend(queue, current.view(1, 1), left, to_left));
            }
            if (right < ranks) {
                requests.push_back(comm.irecv(queue, current.view(cells + 1, 1), right, to_left));
                requests.push_back(comm.isend(queue, current.view(cells, 1), right, to_right));
            }
            for (auto& request : requests) queue.wait(request.wait());
            queue.launch(heat, {cells}, {}, current, next, cells);
            std::swap(current, next);
        }
        std::vector<float> result(cells + 2);
        queue.copy(result, current, dualrt::Sync::blocking);
        const double seconds = MPI_Wtime() - start;

        sweep_on_host(rod, steps);
        std::size_t wrong = 0;
        for (std::uint32_t i = 1; i <= cells; ++i) {
            const float& expected = rod[std::size_t(cells) * rank + i];
            wrong += std::memcmp(&result[i], &expected, sizeof(float)) != 0 ? 1 : 0;
        }
        std::cout << "rank " << rank << " of " << ranks << " on "
                  << dualrt::to_string(device.backend()) << " '" << device.name() << "' ("
                  << dualrt::mpi::to_string(comm.transport()) << " transfers): " << steps
                  << " steps of " << cells << " cells in " << seconds * 1e3 << " ms, "
                  << (wrong == 0 ? "equal to the host's bit for bit"
                                 : std::to_string(wrong) + " cells differ from the host's")
                  << "\n";
        failed = wrong == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        failed = 1;
    }
    // Every rank exits with the same status: any rank's mismatch or error fails the run.
    int any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any_failed;
}
