// SGEMM of a vendor library on dualrt's own buffers and queue, through their native handles:
// cuBLAS on a CUDA device, CLBlast on an OpenCL device. Both libraries are loaded at run time
// (bench/support/runtime_library.hpp), so nothing here links them, and a missing one is a
// reason, not a failure. Each is compiled where its header is found (bench/CMakeLists.txt);
// a stand-in says why not elsewhere.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <memory>
#include <string>

namespace dualrt::samples::vendor_blas {

class VendorSgemm {
public:
    virtual ~VendorSgemm() = default;
    // The library and the file it was loaded from: "cuBLAS 13.0.2 (libcublas.so.13)".
    virtual std::string describe() const = 0;
    // Enqueues C = A * B in fp32 on `queue`, in its order (after the work enqueued before, before
    // the work enqueued after): row-major A (m x k), B (k x n) and C (m x n) given as views of
    // exactly m*k, k*n and m*n floats of `queue`'s device (views at any offset; the device is the
    // caller's to get right: the library sees only raw handles). Returns once it is enqueued.
    // Not thread-safe (one library handle per object). Throws dualrt::Error naming the library's
    // call and status when it fails, Errc::invalid_argument for views of the wrong size.
    virtual void sgemm(Queue& queue, std::size_t m, std::size_t n, std::size_t k,
                       const Buffer<float>& a, const Buffer<float>& b, const Buffer<float>& c) = 0;
};

// The vendor SGEMM of `device`'s backend, or nullptr with `why_not` saying why it is missing
// here (the library is not installed, this build has no header for it).
std::unique_ptr<VendorSgemm> load_vendor_sgemm(const Device& device, std::string& why_not);

// The two libraries' loaders, for load_vendor_sgemm (cublas_sgemm.cpp and clblast_sgemm.cpp, or
// their stand-ins). `device` is of the library's backend.
std::unique_ptr<VendorSgemm> load_cublas_sgemm(const Device& device, std::string& why_not);
std::unique_ptr<VendorSgemm> load_clblast_sgemm(const Device& device, std::string& why_not);

// Throws Errc::invalid_argument unless m, n, k > 0 and a, b and c hold m*k, k*n and m*n floats.
// `library` names the caller in the message.
void check_operands(const char* library, Queue& queue, std::size_t m, std::size_t n,
                    std::size_t k, const Buffer<float>& a, const Buffer<float>& b,
                    const Buffer<float>& c);

// Throws dualrt::Error (Errc::backend_failure) for a failed vendor call.
[[noreturn]] void raise_vendor_error(const char* backend, const std::string& call,
                                     long long code, const std::string& code_name,
                                     const std::string& context);

}  // namespace dualrt::samples::vendor_blas
