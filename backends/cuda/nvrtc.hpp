// Compiling CUDA C++ source text at run time with NVRTC, loaded with dlopen on first use so that
// the backend needs NVRTC only when an application compiles sources.
#pragma once

#include <string>
#include <vector>

namespace dualrt::cuda {

// Compiles `source` (named `name` in messages) for a GPU of `compute_capability` (90 for 9.0),
// with kernels/cu/dualrt_kernel.cuh available to #include. Returns a CUBIN for the device's
// architecture, or PTX when NVRTC is older than the GPU (the driver then compiles it).
// Throws Errc::compile_error with NVRTC's full log, or Errc::unavailable naming the libraries
// tried when NVRTC cannot be loaded. Thread-safe.
std::vector<char> compile_with_nvrtc(const std::string& source, const std::string& name,
                                     int compute_capability, const std::string& device);

}  // namespace dualrt::cuda
