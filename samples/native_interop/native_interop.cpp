// native_interop: native handles both ways. The application makes a queue of its own (an OpenCL
// command queue, a CUDA stream) and wraps it as a dualrt Queue, borrowed; dualrt copies two
// matrices into its buffers on that queue, a vendor BLAS (CLBlast on OpenCL, cuBLAS on CUDA)
// multiplies those buffers through their native handles on the same queue, and dualrt copies
// the product back: one in-order queue, so no event or wait joins dualrt's work and the BLAS's.
// Unlike the other samples, this one links the vendor libraries, where CMake found them.
#include <dualrt/dualrt.hpp>

#if defined(NATIVE_INTEROP_CLBLAST)
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <clblast_c.h>
#endif
#if defined(NATIVE_INTEROP_CUBLAS)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

#include <cfloat>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int m = 192, k = 160, n = 128;  // C (m x n) = A (m x k) * B (k x n), row-major

[[maybe_unused]] void check(bool ok, const char* call, long long code) {
    if (!ok) throw std::runtime_error(std::string(call) + " failed with " + std::to_string(code));
}

#if defined(NATIVE_INTEROP_CLBLAST)
std::vector<float> sgemm_opencl(const dualrt::Device& device, const std::vector<float>& a,
                                const std::vector<float>& b) {
    // The application's own in-order queue, on dualrt's context and device; released by the
    // application (here, the unique_ptr) after the dualrt Queue made around it is gone.
    cl_int status = CL_SUCCESS;
    std::unique_ptr<_cl_command_queue, decltype(&clReleaseCommandQueue)> native(
        clCreateCommandQueueWithProperties(reinterpret_cast<cl_context>(device.native_context()),
                                           reinterpret_cast<cl_device_id>(device.native_handle()),
                                           nullptr, &status),
        &clReleaseCommandQueue);
    check(status == CL_SUCCESS, "clCreateCommandQueueWithProperties", status);
    dualrt::Queue queue =
        dualrt::wrap_queue(device, dualrt::opencl_handle(native.get()), dualrt::Ownership::borrow);

    auto da = device.alloc<float>(a.size()), db = device.alloc<float>(b.size());
    auto dc = device.alloc<float>(std::size_t(m) * n);
    queue.copy(da, a);
    queue.copy(db, b);
    const auto mem = [](const dualrt::Buffer<float>& buffer) {
        return reinterpret_cast<cl_mem>(buffer.native_handle());  // whole allocations: offset 0
    };
    // Taking the queue's handle marks the end of dualrt's work so far, so the copies' Events
    // never include the SGEMM; CLBlast enqueues after them on the same queue.
    auto q = reinterpret_cast<cl_command_queue>(queue.native_handle());
    const CLBlastStatusCode blas =
        CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k,
                     1.0f, mem(da), 0, k, mem(db), 0, n, 0.0f, mem(dc), 0, n, &q, nullptr);
    check(blas == CLBlastSuccess, "CLBlastSgemm", blas);
    std::vector<float> c(std::size_t(m) * n);
    queue.copy(c, dc, dualrt::Sync::blocking);  // after the SGEMM, in the queue's order
    return c;
}
#endif

#if defined(NATIVE_INTEROP_CUBLAS)
std::vector<float> sgemm_cuda(const dualrt::Device& device, const std::vector<float>& a,
                              const std::vector<float>& b) {
    // The CUDA runtime, and so cuBLAS, works in the device's primary context: dualrt's too.
    const cudaError_t current = cudaSetDevice(device.info().index);
    check(current == cudaSuccess, "cudaSetDevice", current);
    cudaStream_t raw_stream = nullptr;
    const cudaError_t made = cudaStreamCreateWithFlags(&raw_stream, cudaStreamNonBlocking);
    check(made == cudaSuccess, "cudaStreamCreateWithFlags", made);
    std::unique_ptr<CUstream_st, decltype(&cudaStreamDestroy)> stream(raw_stream,
                                                                      &cudaStreamDestroy);
    cublasHandle_t raw_blas = nullptr;
    const cublasStatus_t created = cublasCreate(&raw_blas);
    check(created == CUBLAS_STATUS_SUCCESS, "cublasCreate", created);
    std::unique_ptr<cublasContext, decltype(&cublasDestroy)> blas(raw_blas, &cublasDestroy);
    dualrt::Queue queue =
        dualrt::wrap_queue(device, dualrt::cuda_handle(stream.get()), dualrt::Ownership::borrow);

    auto da = device.alloc<float>(a.size()), db = device.alloc<float>(b.size());
    auto dc = device.alloc<float>(std::size_t(m) * n);
    queue.copy(da, a);
    queue.copy(db, b);
    const auto ptr = [](const dualrt::Buffer<float>& buffer) {
        return reinterpret_cast<float*>(buffer.native_handle() + buffer.offset_bytes());
    };
    // Taking the stream's handle marks the end of dualrt's work so far (see the OpenCL half).
    const cublasStatus_t set =
        cublasSetStream(blas.get(), reinterpret_cast<cudaStream_t>(queue.native_handle()));
    check(set == CUBLAS_STATUS_SUCCESS, "cublasSetStream", set);
    // cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T.
    const float one = 1.0f, zero = 0.0f;
    const cublasStatus_t done = cublasSgemm(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                                            ptr(db), n, ptr(da), k, &zero, ptr(dc), n);
    check(done == CUBLAS_STATUS_SUCCESS, "cublasSgemm", done);
    std::vector<float> c(std::size_t(m) * n);
    queue.copy(c, dc, dualrt::Sync::blocking);  // after the SGEMM, in the stream's order
    return c;
}
#endif

}  // namespace

int main() try {
    dualrt::Device device = dualrt::select();
    const bool opencl = device.backend() == dualrt::Backend::opencl;
    const char* blas = opencl ? "CLBlast" : "cuBLAS";
    std::cout << "native_interop on " << dualrt::to_string(device.backend()) << " '"
              << device.name() << "'\n";

    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> a(std::size_t(m) * k), b(std::size_t(k) * n), c;
    for (auto& v : a) v = dist(rng);
    for (auto& v : b) v = dist(rng);
#if defined(NATIVE_INTEROP_CLBLAST)
    if (opencl) c = sgemm_opencl(device, a, b);
#endif
#if defined(NATIVE_INTEROP_CUBLAS)
    if (!opencl) c = sgemm_cuda(device, a, b);
#endif
    if (c.empty()) {  // this backend's half was not built: CMake did not find its library
        std::cout << "skipped: built without " << blas << "\n";
        return 77;  // CTest's skip code for this sample
    }

    // Each element against the host's sum in double, within float's error bound for k terms.
    std::size_t wrong = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double sum = 0.0, magnitude = 0.0;
            for (int p = 0; p < k; ++p) {
                const double term = double(a[i * k + p]) * b[p * n + j];
                sum += term;
                magnitude += std::fabs(term);
            }
            wrong += std::fabs(c[i * n + j] - sum) > k * FLT_EPSILON * magnitude ? 1 : 0;
        }
    std::cout << blas << " SGEMM of " << m << "x" << k << " by " << k << "x" << n
              << " on a borrowed native queue: "
              << (wrong == 0 ? "verified on the host" : std::to_string(wrong) + " wrong results")
              << "\n";
    return wrong == 0 ? 0 : 1;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
