// The kernel bundles users' programs register at start-up (dualrt_add_kernels in CMake), shared
// by every backend. Internal: the backends look kernels up here after their built-in tables.
#pragma once

#include <dualrt/types.hpp>

#include <optional>
#include <string>
#include <vector>

namespace dualrt::detail {

// A kernel file of a registered bundle, copied out of it so that it outlives the bundle (a shared
// library that registered it may be unloaded later).
struct UserKernelFile {
    std::string origin;                // the CMake target that embedded it, "my_app"
    std::string stem;                  // "my_ops" for my_ops.cl / my_ops.cu
    std::string text;                  // OpenCL: the .cl text; CUDA: the .cu text
    std::string fatbin;                // CUDA: what nvcc made of it; empty: compile with NVRTC
    std::vector<std::string> kernels;  // the kernels the file defines

    // "my_ops.cl of my_app", for messages.
    std::string describe(Backend backend) const;
    // Names the file across bundles: a program built from it is cached under this key.
    std::string key() const { return origin + "/" + stem; }
};

// The file of a registered bundle that defines kernel `name` for `backend`, or nullopt. Throws
// Errc::invalid_argument naming both targets when two bundles define it. Thread-safe.
std::optional<UserKernelFile> find_user_kernel(Backend backend, const std::string& name);

// Every kernel the registered bundles define for `backend`. Thread-safe.
std::vector<std::string> user_kernel_names(Backend backend);

// Why bundles were refused at registration ("target 'x' was built against ..."), or "".
std::string refused_bundles();

}  // namespace dualrt::detail
