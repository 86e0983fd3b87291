/// @file
/// Kernel files embedded into a program at build time. The code in this header is written by the
/// build, not by hand: `dualrt_add_kernels()` (CMake) generates the tables and the registration
/// for a user's target, and dualrt's own backends embed their built-in kernels the same way.
/// Applications never need to include it.
#pragma once

#include <cstddef>

namespace dualrt::detail {

/// One kernel file: `<stem>.cl` source text, a `<stem>.cu` source text, or the fatbin nvcc made
/// from it, and the names of the kernels it defines.
struct EmbeddedKernelFile {
    const char* stem;                 ///< "saxpy" for saxpy.cl / saxpy.cu
    const unsigned char* data;        ///< the file's bytes, not 0-terminated
    std::size_t size;                 ///< bytes at `data`
    const char* const* kernel_names;  ///< the __kernel / extern "C" __global__ functions
    std::size_t kernel_count;         ///< entries in kernel_names
};

/// The kernel files of one kind (OpenCL texts, CUDA texts or CUDA fatbins) of one target.
struct EmbeddedKernelTable {
    const EmbeddedKernelFile* files;  ///< `count` files
    std::size_t count;                ///< number of files
};

/// Layout of KernelBundle this header describes. A program built against another layout is
/// refused when it registers (its kernels are reported missing, with the reason, when asked for).
inline constexpr int kernel_bundle_layout = 1;

/// What `dualrt_add_kernels(<target> ...)` embeds into one target: its OpenCL sources, its CUDA
/// sources, and, when the CUDA Toolkit was found at build time, the fatbins nvcc compiled from
/// them (otherwise a CUDA device compiles the sources with NVRTC when a kernel is first asked
/// for). Any table may be null when the target has no file of that kind.
struct KernelBundle {
    int layout;                                ///< kernel_bundle_layout when built
    const char* origin;                        ///< the CMake target, for messages
    const EmbeddedKernelTable* opencl;         ///< .cl source texts
    const EmbeddedKernelTable* cuda_sources;   ///< .cu source texts (kernel signatures; NVRTC)
    const EmbeddedKernelTable* cuda_fatbins;   ///< nvcc output, one per .cu file, same order
};

/// Makes the bundle's kernels known to every device, so that `Device::kernel(name)` finds them.
/// Called by the registration code that dualrt_add_kernels generates, while the program starts
/// (or a shared library loads). The bundle must stay valid until unregister_kernel_bundle.
/// Never throws: a problem is reported when one of its kernels is asked for.
void register_kernel_bundle(const KernelBundle* bundle) noexcept;

/// Forgets a bundle, when the program ends or the shared library that embeds it is unloaded.
/// Kernels already built from it stay usable: the backends keep their own copies.
void unregister_kernel_bundle(const KernelBundle* bundle) noexcept;

}  // namespace dualrt::detail
