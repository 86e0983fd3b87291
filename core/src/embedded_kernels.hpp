// The table of kernel sources a build step embeds into a backend module. Internal.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

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

// The file of `table` that defines kernel `name`, or nullptr.
inline const EmbeddedKernelFile* file_defining(const EmbeddedKernelTable& table,
                                               const std::string& name) {
    for (std::size_t f = 0; f < table.count; ++f) {
        const EmbeddedKernelFile& file = table.files[f];
        for (std::size_t k = 0; k < file.kernel_count; ++k) {
            if (name == file.kernel_names[k]) return &file;
        }
    }
    return nullptr;
}

// "busy, fill, saxpy": every kernel of `table` and of `more` (kernels loaded at run time),
// sorted, for "no such kernel" messages; "(none)" when there is none.
inline std::string kernel_list(const EmbeddedKernelTable& table, std::vector<std::string> more) {
    for (std::size_t f = 0; f < table.count; ++f) {
        const EmbeddedKernelFile& file = table.files[f];
        more.insert(more.end(), file.kernel_names, file.kernel_names + file.kernel_count);
    }
    std::sort(more.begin(), more.end());
    more.erase(std::unique(more.begin(), more.end()), more.end());
    std::string text;
    for (const auto& name : more) text += (text.empty() ? "" : ", ") + name;
    return text.empty() ? "(none)" : text;
}

}  // namespace dualrt::detail
