// dualrt::mpi before MPI_Init and after MPI_Finalize: Errc::unavailable naming what to do, never a
// crash or a hang. Runs as a plain program (one process, no mpirun).
#include <dualrt/dualrt.hpp>
#include <dualrt/mpi.hpp>

#include <cstdio>
#include <cstring>
#include <functional>

namespace {

int failures = 0;

void expect(const char* what, const std::function<void()>& body, const char* needle) {
    try {
        body();
        std::printf("FAIL %s: no error\n", what);
        ++failures;
    } catch (const dualrt::Error& e) {
        const bool ok = e.errc() == dualrt::Errc::unavailable && std::strstr(e.what(), needle);
        std::printf("%s %s: %s\n", ok ? "ok" : "FAIL", what, e.what());
        failures += ok ? 0 : 1;
    }
}

}  // namespace

int main(int argc, char** argv) {
    dualrt::Device device;
    try {
        device = dualrt::select();
    } catch (const dualrt::Error& e) {
        std::printf("SKIPPED: no device: %s\n", e.what());
        return 77;
    }
    expect("device_for_rank before MPI_Init", [] { dualrt::mpi::device_for_rank(); },
           "MPI is not initialised; call MPI_Init");
    expect("Communicator before MPI_Init", [&] { dualrt::mpi::Communicator comm(device); },
           "MPI is not initialised");
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    expect("Communicator after MPI_Finalize", [&] { dualrt::mpi::Communicator comm(device); },
           "MPI is already finalised");
    return failures == 0 ? 0 : 1;
}
