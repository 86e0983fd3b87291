// CLBlast SGEMM on an OpenCL device's dualrt buffers and queue: libclblast loaded at run time.
// CLBlast builds its kernels for the queue's context and device on first use and keeps them
// (its own cache), so the first call is slow; it enqueues on the queue it is given.
#include "runtime_library.hpp"
#include "vendor_sgemm.hpp"

#define CL_TARGET_OPENCL_VERSION 300
#include <clblast_c.h>

#include <string>

namespace dualrt::samples::vendor_blas {
namespace {

class ClblastSgemm final : public VendorSgemm {
public:
    ClblastSgemm(decltype(&::CLBlastSgemm) function, std::string library)
        : sgemm_(function), library_(std::move(library)) {}

    std::string describe() const override { return "CLBlast (" + library_ + ")"; }

    void sgemm(Queue& queue, std::size_t m, std::size_t n, std::size_t k, const Buffer<float>& a,
               const Buffer<float>& b, const Buffer<float>& c) override {
        check_operands("CLBlast", queue, m, n, k, a, b, c);
        const auto memory = [](const Buffer<float>& view) {
            return reinterpret_cast<cl_mem>(view.native_handle());
        };
        const auto offset = [](const Buffer<float>& view) {
            return view.offset_bytes() / sizeof(float);  // CLBlast counts offsets in elements
        };
        // Taking the queue's handle marks the end of dualrt's work so far (queue.hpp).
        auto native_queue = reinterpret_cast<cl_command_queue>(queue.native_handle());
        // Row-major, as dualrt's matrices are: leading dimensions are the row lengths.
        const CLBlastStatusCode status =
            sgemm_(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, 1.0f,
                   memory(a), offset(a), k, memory(b), offset(b), n, 0.0f, memory(c), offset(c),
                   n, &native_queue, nullptr);
        if (status != CLBlastSuccess)
            raise_vendor_error("opencl", "CLBlastSgemm", status, status_name(status),
                               "CLBlast (" + library_ + ") C(" + std::to_string(m) + "x" +
                                   std::to_string(n) + ") = A(" + std::to_string(m) + "x" +
                                   std::to_string(k) + ") * B, row-major fp32");
    }

private:
    // CLBlast's own codes (below -1000); the others are OpenCL's (clblast_c.h).
    static std::string status_name(CLBlastStatusCode status) {
        switch (status) {
        case CLBlastNotImplemented: return "CLBlastNotImplemented";
        case CLBlastInvalidMatrixA: return "CLBlastInvalidMatrixA";
        case CLBlastInvalidMatrixB: return "CLBlastInvalidMatrixB";
        case CLBlastInvalidMatrixC: return "CLBlastInvalidMatrixC";
        case CLBlastInsufficientMemoryA: return "CLBlastInsufficientMemoryA";
        case CLBlastInsufficientMemoryB: return "CLBlastInsufficientMemoryB";
        case CLBlastInsufficientMemoryC: return "CLBlastInsufficientMemoryC";
        default: return status > -1000 ? "an OpenCL error code" : "a CLBlast error code";
        }
    }

    decltype(&::CLBlastSgemm) sgemm_;
    std::string library_;
};

}  // namespace

std::unique_ptr<VendorSgemm> load_clblast_sgemm(const Device&, std::string& why_not) {
    static RuntimeLibrary clblast({"libclblast.so.1", "libclblast.so"});
    static const auto sgemm = DUALRT_RUNTIME_FUNCTION(clblast, CLBlastSgemm);
    if (sgemm == nullptr) {
        why_not = "CLBlast is not installed here (on Debian: apt-get install libclblast1): " +
                  clblast.why_not();
        return nullptr;
    }
    why_not.clear();
    return std::make_unique<ClblastSgemm>(sgemm, clblast.name());
}

}  // namespace dualrt::samples::vendor_blas
