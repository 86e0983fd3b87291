// GPU-aware MPI: device pointers go to MPI directly only where the library says, at run time,
// that it reads CUDA memory. No OpenCL MPI exists (a cl_mem is not an address), so OpenCL always
// stages.
#include "comm_state.hpp"
#include "mpi_check.hpp"

#include <cstdint>

#if DUALRT_MPI_HAS_CUDA_QUERY
#include <mpi-ext.h>
#endif

namespace dualrt::mpi::detail {

bool mpi_reads_cuda_memory() {
#if DUALRT_MPI_HAS_CUDA_QUERY
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

void* device_address(const BufferView& buffer, std::size_t offset) {
    const auto base = static_cast<std::uintptr_t>(buffer.native_handle());
    return reinterpret_cast<void*>(base + buffer.offset_bytes() + offset);
}

}  // namespace dualrt::mpi::detail
