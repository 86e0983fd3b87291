// The table of kernel sources a build step embeds into a backend module. Internal.
#pragma once

#include <cstddef>

namespace dualrt::detail {

// One kernel file: kernels/<backend>/<stem>.<ext>, and the kernel names it defines.
struct EmbeddedKernelFile {
    const char* stem;                 // "saxpy"
    const unsigned char* data;        // source text (OpenCL) or fatbin (CUDA), not 0-terminated
    std::size_t size;
    const char* const* kernel_names;  // the __kernel / extern "C" __global__ functions
    std::size_t kernel_count;
};

struct EmbeddedKernelTable {
    const EmbeddedKernelFile* files;
    std::size_t count;
};

}  // namespace dualrt::detail
