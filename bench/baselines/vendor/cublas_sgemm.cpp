// The cuBLAS part of the vendor baseline: the handle, its error check, and VendorCuda::sgemm.
#include "vendor_cuda.hpp"

#include <dualrt/error.hpp>

namespace dualrt::bench::vendor {

void check(cublasStatus_t status, const char* call, const std::string& context) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    ErrorInfo info;
    switch (status) {
    case CUBLAS_STATUS_ALLOC_FAILED: info.errc = Errc::out_of_memory; break;
    // cublasCreate's answer when the CUDA runtime cannot start, and a GPU cuBLAS does not support.
    case CUBLAS_STATUS_NOT_INITIALIZED:
    case CUBLAS_STATUS_ARCH_MISMATCH: info.errc = Errc::unavailable; break;
    case CUBLAS_STATUS_INVALID_VALUE: info.errc = Errc::invalid_argument; break;
    default: info.errc = Errc::backend_failure; break;
    }
    info.backend = "cuda";
    info.call = call;
    info.code = static_cast<std::int64_t>(status);
    info.code_name = cublasGetStatusName(status);
    info.detail = cublasGetStatusString(status);
    info.context = "vendor baseline: " + context;
    throw Error(std::move(info));
}

CublasHandle::CublasHandle(cudaStream_t stream) {
    const std::string context = "the cuBLAS handle";
    check(cublasCreate(&handle_), "cublasCreate", context);
    try {
        check(cublasSetStream(handle_, stream), "cublasSetStream", context);
        // Strict fp32: CUBLAS_PEDANTIC_MATH runs cublasSgemm as CUBLAS_COMPUTE_32F_PEDANTIC (see
        // cublasMigrateComputeType in cublas_api.h), the prescribed precision in every phase:
        // no TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH) and no BF16x9 emulation
        // (CUBLAS_FP32_EMULATED_BF16X9_MATH), so it is compared with fp32 kernels on fair terms.
        check(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH),
              "cublasSetMathMode(CUBLAS_PEDANTIC_MATH)", context);
        cublasMath_t mode = CUBLAS_DEFAULT_MATH;
        check(cublasGetMathMode(handle_, &mode), "cublasGetMathMode", context);
        if ((static_cast<int>(mode) & 0xf) != CUBLAS_PEDANTIC_MATH)
            invalid_argument("cublasSetMathMode", "the handle reports math mode " +
                                                      std::to_string(static_cast<int>(mode)) +
                                                      " after CUBLAS_PEDANTIC_MATH was set");
    } catch (...) {
        (void)cublasDestroy(handle_);
        throw;
    }
}

CublasHandle::~CublasHandle() { (void)cublasDestroy(handle_); }

VendorTiming VendorCuda::sgemm(int m, int n, int k, const float* a, const float* b, float* c,
                               int warmup, int repetitions) {
    static constexpr const char* call = "VendorBaseline::sgemm";
    check_runs(call, warmup, repetitions);
    if (m < 1 || n < 1 || k < 1)
        invalid_argument(call, "m, n and k must be >= 1, not " + std::to_string(m) + ", " +
                                   std::to_string(n) + " and " + std::to_string(k));
    if (a == nullptr || b == nullptr || c == nullptr)
        invalid_argument(call, "needs host arrays a, b and c");
    const auto count = [](int rows, int columns) {
        return static_cast<std::size_t>(rows) * static_cast<std::size_t>(columns);
    };
    const std::size_t a_bytes = byte_count(call, "A", count(m, k), sizeof(float));
    const std::size_t b_bytes = byte_count(call, "B", count(k, n), sizeof(float));
    const std::size_t c_bytes = byte_count(call, "C", count(m, n), sizeof(float));
    const std::string where =
        context("cublasSgemm C(" + std::to_string(m) + "x" + std::to_string(n) + ") = A(" +
                std::to_string(m) + "x" + std::to_string(k) + ") * B(" + std::to_string(k) + "x" +
                std::to_string(n) + "), row-major fp32");
    select();

    DeviceMemory da(a_bytes, where), db(b_bytes, where), dc(c_bytes, where);
    VENDOR_CHECK(cudaMemcpyAsync(da.get(), a, a_bytes, cudaMemcpyHostToDevice, stream_.get()),
                 where);
    VENDOR_CHECK(cudaMemcpyAsync(db.get(), b, b_bytes, cudaMemcpyHostToDevice, stream_.get()),
                 where);
    VENDOR_CHECK(cudaStreamSynchronize(stream_.get()), where);

    // cuBLAS is column-major, and a row-major R x C matrix is the column-major C x R matrix of
    // its transpose with the same bytes. So C = A * B row-major is C^T = B^T * A^T column-major:
    // an (n x k) * (k x m) product with B first, leading dimensions n, k and n, no transposes.
    const float alpha = 1.0f;
    const float beta = 0.0f;  // C is only written: cuBLAS does not read it with beta 0
    const VendorTiming timing = time_calls(
        warmup, repetitions,
        [&] {
            check(cublasSgemm(cublas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha,
                              db.as<const float>(), n, da.as<const float>(), k, &beta,
                              dc.as<float>(), n),
                  "cublasSgemm", where);
        },
        where);

    VENDOR_CHECK(cudaMemcpyAsync(c, dc.get(), c_bytes, cudaMemcpyDeviceToHost, stream_.get()),
                 where);
    VENDOR_CHECK(cudaStreamSynchronize(stream_.get()), where);
    return timing;
}

}  // namespace dualrt::bench::vendor
