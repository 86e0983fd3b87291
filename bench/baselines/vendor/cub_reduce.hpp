// The CUB calls of the vendor baseline, as plain functions: CUB is header-only CUDA C++ that only
// nvcc compiles, so cub_reduce.cu holds them and everything else in the module (timing, memory,
// errors) stays plain C++ built like the rest of the project. No dualrt header here, so nvcc
// never compiles the library's headers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace dualrt::bench::vendor {

// cub::DeviceReduce::Sum of `n` values at `in` into `*out`, on `stream`, with CUB's two-phase
// convention: with `temp` null it only sets `temp_bytes` to the temporary storage it needs;
// otherwise it enqueues the reduction. Returns CUB's cudaError_t unchanged.
cudaError_t cub_device_sum(void* temp, std::size_t& temp_bytes, const float* in, float* out,
                           std::size_t n, cudaStream_t stream);
cudaError_t cub_device_sum(void* temp, std::size_t& temp_bytes, const std::int32_t* in,
                           std::int32_t* out, std::size_t n, cudaStream_t stream);

// The CUB version the module was compiled with (CUB_MAJOR_VERSION and friends).
struct CubVersion {
    int major = 0;
    int minor = 0;
    int subminor = 0;
};
CubVersion cub_version();

}  // namespace dualrt::bench::vendor
