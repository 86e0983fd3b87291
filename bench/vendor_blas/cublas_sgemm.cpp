// cuBLAS SGEMM on a CUDA device's dualrt buffers and queue: libcublas loaded at run time, and
// libcuda (which the CUDA backend has loaded already) to make the device's context current
// around cuBLAS calls. cuBLAS, like the CUDA runtime, works in the calling thread's current
// context: the device's primary context for dualrt's own devices, which is the runtime's too, or
// the application's context for a Device from wrap_device.
#include "runtime_library.hpp"
#include "vendor_sgemm.hpp"

#include <cublas_v2.h>
#include <cuda.h>

#include <string>

namespace dualrt::samples::vendor_blas {
namespace {

// The functions used, typed from cublas_v2.h and cuda.h (which map several to _v2 symbols).
struct CublasFunctions {
    decltype(&::cublasCreate) create = nullptr;
    decltype(&::cublasDestroy) destroy = nullptr;
    decltype(&::cublasSetStream) set_stream = nullptr;
    decltype(&::cublasSetMathMode) set_math_mode = nullptr;
    decltype(&::cublasGetVersion) get_version = nullptr;
    decltype(&::cublasGetStatusName) status_name = nullptr;
    decltype(&::cublasSgemm) sgemm = nullptr;
    decltype(&::cuCtxPushCurrent) push_context = nullptr;
    decltype(&::cuCtxPopCurrent) pop_context = nullptr;
};

// Makes `context` current on the calling thread for one scope.
class CurrentContext {
public:
    CurrentContext(const CublasFunctions& f, CUcontext context) : f_(f) {
        const CUresult status = f_.push_context(context);
        if (status != CUDA_SUCCESS)
            raise_vendor_error("cuda", "cuCtxPushCurrent", status, "",
                               "making the device's context current for cuBLAS");
    }
    ~CurrentContext() {
        CUcontext popped = nullptr;
        static_cast<void>(f_.pop_context(&popped));  // restores the caller's; nothing to report
    }
    CurrentContext(const CurrentContext&) = delete;
    CurrentContext& operator=(const CurrentContext&) = delete;

private:
    const CublasFunctions& f_;
};

class CublasSgemm final : public VendorSgemm {
public:
    CublasSgemm(const CublasFunctions& f, std::string library, Device device)
        : f_(f), library_(std::move(library)), device_(std::move(device)),
          context_(reinterpret_cast<CUcontext>(device_.native_context())) {
        CurrentContext current(f_, context_);
        check(f_.create(&handle_), "cublasCreate");
        // Strict fp32, no TF32 tensor cores: the precision the ladder's kernels compute in, as
        // for the matmul benchmark's cuBLAS row (bench/baselines/vendor/cublas_sgemm.cpp).
        const cublasStatus_t mode = f_.set_math_mode(handle_, CUBLAS_PEDANTIC_MATH);
        int version = 0;
        const cublasStatus_t asked = f_.get_version(handle_, &version);
        if (mode != CUBLAS_STATUS_SUCCESS || asked != CUBLAS_STATUS_SUCCESS) {
            static_cast<void>(f_.destroy(handle_));
            check(mode != CUBLAS_STATUS_SUCCESS ? mode : asked,
                  mode != CUBLAS_STATUS_SUCCESS ? "cublasSetMathMode" : "cublasGetVersion");
        }
        version_ = std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
                   "." + std::to_string(version % 100);
    }
    ~CublasSgemm() override {
        CUcontext popped = nullptr;
        if (f_.push_context(context_) != CUDA_SUCCESS) return;  // nothing to report to
        static_cast<void>(f_.destroy(handle_));
        static_cast<void>(f_.pop_context(&popped));
    }
    CublasSgemm(const CublasSgemm&) = delete;
    CublasSgemm& operator=(const CublasSgemm&) = delete;

    std::string describe() const override {
        return "cuBLAS " + version_ + " (" + library_ + "), strict fp32";
    }

    void sgemm(Queue& queue, std::size_t m, std::size_t n, std::size_t k, const Buffer<float>& a,
               const Buffer<float>& b, const Buffer<float>& c) override {
        check_operands("cuBLAS", queue, m, n, k, a, b, c);
        const auto address = [](const Buffer<float>& view) {
            return reinterpret_cast<float*>(static_cast<CUdeviceptr>(view.native_handle()) +
                                            view.offset_bytes());
        };
        CurrentContext current(f_, context_);
        // Taking the stream's handle marks the end of dualrt's work so far (queue.hpp).
        check(f_.set_stream(handle_, reinterpret_cast<cudaStream_t>(queue.native_handle())),
              "cublasSetStream");
        // cuBLAS is column-major, and a row-major R x C matrix is the column-major C x R matrix
        // of its transpose: C = A B row-major is C^T = B^T A^T column-major, an (n x k) (k x m)
        // product with B first and leading dimensions n, k and n.
        const float alpha = 1.0f;
        const float beta = 0.0f;
        check(f_.sgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                       static_cast<int>(k), &alpha, address(b), static_cast<int>(n), address(a),
                       static_cast<int>(k), &beta, address(c), static_cast<int>(n)),
              "cublasSgemm");
    }

private:
    void check(cublasStatus_t status, const char* call) const {
        if (status == CUBLAS_STATUS_SUCCESS) return;
        raise_vendor_error("cuda", call, static_cast<long long>(status), f_.status_name(status),
                           "cuBLAS (" + library_ + ")");
    }

    const CublasFunctions& f_;
    std::string library_;
    Device device_;  // keeps the context (and so the handle's resources) alive
    CUcontext context_;
    cublasHandle_t handle_ = nullptr;
    std::string version_;
};

}  // namespace

std::unique_ptr<VendorSgemm> load_cublas_sgemm(const Device& device, std::string& why_not) {
    // The toolkit's major version at build time, by soname, then in that toolkit's folder.
    static RuntimeLibrary cublas({DUALRT_CUBLAS_SONAME, DUALRT_CUBLAS_TOOLKIT_PATH});
    static RuntimeLibrary cuda({"libcuda.so.1"});
    static CublasFunctions f;
    static const std::string missing = [] {
        if (!cublas.loaded()) return "cuBLAS is not installed here: " + cublas.why_not();
        if (!cuda.loaded()) return "the CUDA driver is not installed here: " + cuda.why_not();
        f.create = DUALRT_RUNTIME_FUNCTION(cublas, cublasCreate);
        f.destroy = DUALRT_RUNTIME_FUNCTION(cublas, cublasDestroy);
        f.set_stream = DUALRT_RUNTIME_FUNCTION(cublas, cublasSetStream);
        f.set_math_mode = DUALRT_RUNTIME_FUNCTION(cublas, cublasSetMathMode);
        f.get_version = DUALRT_RUNTIME_FUNCTION(cublas, cublasGetVersion);
        f.status_name = DUALRT_RUNTIME_FUNCTION(cublas, cublasGetStatusName);
        f.sgemm = DUALRT_RUNTIME_FUNCTION(cublas, cublasSgemm);
        f.push_context = DUALRT_RUNTIME_FUNCTION(cuda, cuCtxPushCurrent);
        f.pop_context = DUALRT_RUNTIME_FUNCTION(cuda, cuCtxPopCurrent);
        if (!cublas.why_not().empty()) return cublas.why_not();
        if (!cuda.why_not().empty()) return cuda.why_not();
        return std::string();
    }();
    why_not = missing;
    if (!missing.empty()) return nullptr;
    return std::make_unique<CublasSgemm>(f, cublas.name(), device);
}

}  // namespace dualrt::samples::vendor_blas
