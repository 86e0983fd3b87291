// Reading CUDA kernel signatures out of .cu source text. Internal. A CUDA module (fatbin or NVRTC
// output) does not say which parameter is a pointer, so the CUDA backend reads the source to
// classify parameters for the core's pre-launch argument checks.
#pragma once

#include "backend/backend.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

struct KernelSignature {
    std::string name;                        // "saxpy"
    std::vector<backend::ParamInfo> params;  // in order
};

// Every kernel (`__global__ void NAME(...) {`, possibly `extern "C"`, `static`, with
// `__launch_bounds__(...)` before void or between void and the name) defined in CUDA source text,
// in order of appearance. Comments, string and character literals and preprocessor lines are
// ignored. Skipped: template kernels (they have no unmangled name) and prototypes (no body).
// Each parameter is
//   a pointer (a `*` outside template arguments) or an array   -> Kind::buffer, sizeof(void*)
//   dualrt_local<T>              -> Kind::local, 4 (the byte offset the backend passes)
//   anything else                -> Kind::scalar, cuda_scalar_size(type); 0 when unknown
// with type_name as written, whitespace-normalised ("const float* __restrict__", "uint") and
// name ("" when unnamed). Never throws on odd input: what it cannot parse yields fewer
// signatures.
std::vector<KernelSignature> cuda_kernel_signatures(const std::string& source);

// Bytes of a CUDA scalar or vector type as written in a kernel parameter ("uint", "const int",
// "unsigned long long", "float3" (12: CUDA does not pad 3-component vectors), "__half"); 0 when
// unknown (structs, typedefs it does not know, pointers).
std::size_t cuda_scalar_size(const std::string& type);

}  // namespace dualrt::detail
