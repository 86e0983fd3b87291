// GPU-aware MPI: device pointers go to MPI directly only where the library says, at run time,
// that it reads CUDA memory. No OpenCL MPI exists (a cl_mem is not an address), so OpenCL always
// stages.
#include "comm_state.hpp"
#include "mpi_check.hpp"

#include <dualrt/runtime.hpp>

#include <cstdlib>
#include <string>

#if DUALRT_MPI_HAS_CUDA_QUERY
#include <mpi-ext.h>
#endif

namespace dualrt::mpi::detail {

inline constexpr const char* env_transport = "DUALRT_MPI_TRANSPORT";

bool mpi_reads_cuda_memory() {
#if DUALRT_MPI_HAS_CUDA_QUERY
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

Transport choose_transport(const Device& device, const CommunicatorOptions& options) {
    std::string asked = "auto";
    if (const char* value = std::getenv(env_transport); value != nullptr && *value != '\0')
        asked = value;
    if (asked != "auto" && asked != "staged" && asked != "gpu-aware")
        raise(Errc::invalid_argument, "dualrt::mpi::Communicator",
              std::string(env_transport) + "='" + asked +
                  "' is not a transport; expected one of: auto, staged, gpu-aware");
    const bool possible = device.backend() == Backend::cuda && mpi_reads_cuda_memory();
    if (asked == "gpu-aware" && !possible)
        raise(Errc::unavailable, "dualrt::mpi::Communicator",
              std::string(env_transport) + "=gpu-aware, but " +
                  (device.backend() != Backend::cuda
                       ? "the device is an OpenCL device (MPI reads no OpenCL memory)"
                       : "this MPI library does not report CUDA support "
                         "(MPIX_Query_cuda_support)"));
    if (asked == "staged" || options.force_staged || !possible) return Transport::staged;
    return Transport::gpu_aware;
}

void* device_address(const BufferView& buffer, std::size_t offset) {
    const auto base = static_cast<std::uintptr_t>(buffer.native_handle());
    return reinterpret_cast<void*>(base + buffer.offset_bytes() + offset);
}

}  // namespace dualrt::mpi::detail
