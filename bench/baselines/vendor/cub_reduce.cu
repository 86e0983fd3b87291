// The CUB part of libdualrt_vendor_cuda.so (see cub_reduce.hpp), compiled by nvcc into a PIC
// object that the module links (bench/vendor/CMakeLists.txt).
#include "cub_reduce.hpp"

#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>

namespace dualrt::bench::vendor {

// num_items as std::size_t: CUB picks 64-bit offsets for it, so inputs past 2^31 values work.
cudaError_t cub_device_sum(void* temp, std::size_t& temp_bytes, const float* in, float* out,
                           std::size_t n, cudaStream_t stream) {
    return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, stream);
}

cudaError_t cub_device_sum(void* temp, std::size_t& temp_bytes, const std::int32_t* in,
                           std::int32_t* out, std::size_t n, cudaStream_t stream) {
    return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, stream);
}

CubVersion cub_version() {
    return {CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION};
}

}  // namespace dualrt::bench::vendor
