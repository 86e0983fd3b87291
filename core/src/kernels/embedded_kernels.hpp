// Looking kernels up in the tables a build step embeds: a backend module's built-in kernels, and
// the bundles users' programs register (dualrt_add_kernels). Internal.
#pragma once

#include <dualrt/embedded_kernels.hpp>

#include "kernels/kernel_bundles.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

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

// "busy, fill, saxpy": every kernel of `table`, of `more` (kernels loaded at run time) and of the
// bundles registered for `backend`, sorted, for "no such kernel" messages; "(none)" when there is
// none.
inline std::string kernel_list(const EmbeddedKernelTable& table, std::vector<std::string> more,
                               Backend backend) {
    for (std::size_t f = 0; f < table.count; ++f) {
        const EmbeddedKernelFile& file = table.files[f];
        more.insert(more.end(), file.kernel_names, file.kernel_names + file.kernel_count);
    }
    for (auto& name : user_kernel_names(backend)) more.push_back(std::move(name));
    std::sort(more.begin(), more.end());
    more.erase(std::unique(more.begin(), more.end()), more.end());
    std::string text;
    for (const auto& name : more) text += (text.empty() ? "" : ", ") + name;
    return text.empty() ? "(none)" : text;
}

// The detail of a "no kernel named ..." error: the known kernels, and why a registered bundle
// was refused, if one was.
inline std::string unknown_kernel_detail(const std::string& name, const EmbeddedKernelTable& table,
                                         std::vector<std::string> loaded, Backend backend) {
    std::string detail = "no kernel named '" + name +
                         "'; known kernels: " + kernel_list(table, std::move(loaded), backend);
    const std::string refused = refused_bundles();
    if (!refused.empty()) detail += "; " + refused;
    return detail;
}

// A kernel defined both by a built-in file and by a user's bundle: neither can be chosen
// silently. Throws Errc::invalid_argument naming both.
// `builtin` is the built-in file ("kernels/cl/saxpy.cl"), `device` the device's description.
[[noreturn]] void raise_kernel_defined_twice(Backend backend, const std::string& name,
                                             const std::string& builtin,
                                             const UserKernelFile& user,
                                             const std::string& device);

}  // namespace dualrt::detail
