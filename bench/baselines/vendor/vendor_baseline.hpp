// The vendor libraries the kernel ladders are measured against, on a CUDA device: CUB's
// DeviceReduce::Sum for the reductions and cuBLAS SGEMM in strict fp32 (no TF32) for the matrix
// multiply. They live in a module (libdualrt_vendor_cuda.so, built where nvcc and cuBLAS are)
// that the benchmarks load at run time, so they link no vendor library and still run where
// it is missing: they then print why and leave the vendor rows out.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace dualrt::bench {

struct VendorTiming {
    double median_ms = 0.0;  // device time (CUDA events) of one call, median of the timed runs
    double min_ms = 0.0;
    double max_ms = 0.0;
    int repetitions = 0;
};

// One call at a time: the calls share one stream, one pair of events and one cuBLAS handle. Each
// call makes the device current on the calling thread (cudaSetDevice), as a runtime API program
// does; dualrt pushes its own context around its calls, so the two do not disturb each other.
class VendorBaseline {
public:
    virtual ~VendorBaseline() = default;
    // The libraries and versions, e.g. "CUB 3.0.0 (CCCL), cuBLAS 13.0.2 on device 0 'NVIDIA H200'".
    virtual std::string describe() const = 0;

    // cub::DeviceReduce::Sum over `n` values copied from `host` to the device once, its temporary
    // storage allocated once outside the timing; `warmup` untimed calls, then `repetitions` timed
    // ones. `sum` receives the result of the last call (accumulated in the input's type, as CUB
    // does) for the caller to check against its CPU reference. n >= 1, warmup >= 0 and
    // repetitions >= 1, else Errc::invalid_argument.
    virtual VendorTiming reduce_sum(const float* host, std::size_t n, int warmup,
                                    int repetitions, float& sum) = 0;
    virtual VendorTiming reduce_sum(const std::int32_t* host, std::size_t n, int warmup,
                                    int repetitions, std::int32_t& sum) = 0;

    // C = A * B with row-major A (m x k), B (k x n) and C (m x n), through cublasSgemm with
    // CUBLAS_PEDANTIC_MATH (strict fp32: no TF32, no reduced precision), copied from and back to
    // the host around the timing. `c` receives the result of the last call. m, n, k >= 1.
    virtual VendorTiming sgemm(int m, int n, int k, const float* a, const float* b, float* c,
                               int warmup, int repetitions) = 0;
};

// The vendor baseline for `device`, or nullptr with `why_not` set when there is none: the device
// is not a CUDA device, this build had no nvcc, cuBLAS or CUB, the module is not in the folders
// the native baselines are looked for in (module_search.hpp; DUALRT_PLUGIN_PATH adds some), a
// library it needs cannot be loaded here (named, e.g. libcublas.so.13), or the CUDA runtime
// cannot start (a driver older than the runtime). Errors of the libraries once loaded are thrown
// as dualrt::Error naming the call, the code and the sizes (Errc::invalid_argument for bad
// arguments). The baseline keeps nothing of `device`, which may go first.
std::unique_ptr<VendorBaseline> load_vendor_baseline(const Device& device, std::string& why_not);

}  // namespace dualrt::bench
