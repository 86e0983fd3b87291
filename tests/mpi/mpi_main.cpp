// The MPI suite's main, started by mpirun on every rank (CTest: 2 ranks, each with its own PoCL
// device through POCL_DEVICES="pthread pthread"; the GPU machine: see tools/gpu-mpi.sh). Each
// rank runs every test case in the same order, since most cases are collective. The exit code
// is the worst of all ranks', so a failure on any rank fails the test; 77 (skip) when no device
// can be had. DUALRT_MPI_TESTS_SHARE_DEVICES=1 lets ranks share a device (DeviceSharing::allow).
#define DOCTEST_CONFIG_IMPLEMENT
#include "mpi_support.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
dualrt::Device the_device;
}

const dualrt::Device& test::rank_device() { return the_device; }

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int code = 0;
    try {
        // The one-GPU machine runs both ranks on its GPU (tools/gpu-mpi.sh).
        const char* share = std::getenv("DUALRT_MPI_TESTS_SHARE_DEVICES");
        the_device = dualrt::mpi::device_for_rank(
            MPI_COMM_WORLD, share != nullptr && std::string(share) == "1"
                                ? dualrt::mpi::DeviceSharing::allow
                                : dualrt::mpi::DeviceSharing::forbid);
        std::printf("rank %d of %d: %s device %d '%s'\n", rank, size,
                    dualrt::to_string(the_device.backend()), the_device.info().index,
                    the_device.name().c_str());
    } catch (const dualrt::Error& e) {
        std::printf("rank %d: no device: %s\n", rank, e.what());
        code = 77;
    }
    int worst = code;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst == 0) {
        doctest::Context context(argc, argv);
        code = context.run();
        MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    } else if (rank == 0) {
        std::printf("SKIPPED: a rank has no device of its own\n");
    }
    the_device = dualrt::Device();
    MPI_Finalize();
    return worst;
}
