// The registry of users' kernel bundles (dualrt_add_kernels): registered while programs start,
// looked up by the backends when a kernel is asked for by name.
#include "kernels/kernel_bundles.hpp"

#include "kernels/embedded_kernels.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

namespace dualrt::detail {
namespace {

// Registration runs during static initialisation of other libraries and programs, so the
// list is a function-local static: built on first use, whatever the initialisation order.
struct BundleList {
    std::mutex mutex;
    std::vector<const KernelBundle*> bundles;
    std::vector<std::string> refused;  // why bundles of another layout were not registered
};

BundleList& bundle_list() {
    static BundleList instance;
    return instance;
}

const EmbeddedKernelTable* source_table(const KernelBundle& bundle, Backend backend) {
    return backend == Backend::opencl ? bundle.opencl : bundle.cuda_sources;
}

std::string bytes_of(const EmbeddedKernelFile& file) {
    return std::string(reinterpret_cast<const char*>(file.data), file.size);
}

// The copy of `file` (index `index` of the bundle's source table for `backend`) that outlives it.
UserKernelFile copy_of(const KernelBundle& bundle, Backend backend, std::size_t index) {
    const EmbeddedKernelFile& file = source_table(bundle, backend)->files[index];
    UserKernelFile copy;
    copy.origin = bundle.origin != nullptr ? bundle.origin : "(unnamed target)";
    copy.stem = file.stem;
    copy.text = bytes_of(file);
    copy.kernels.assign(file.kernel_names, file.kernel_names + file.kernel_count);
    if (backend == Backend::cuda && bundle.cuda_fatbins != nullptr &&
        index < bundle.cuda_fatbins->count) {
        copy.fatbin = bytes_of(bundle.cuda_fatbins->files[index]);
    }
    return copy;
}

}  // namespace

std::string UserKernelFile::describe(Backend backend) const {
    return stem + (backend == Backend::opencl ? ".cl" : ".cu") + " of target '" + origin + "'";
}

void register_kernel_bundle(const KernelBundle* bundle) noexcept {
    if (bundle == nullptr) return;
    BundleList& list = bundle_list();
    try {
        std::lock_guard<std::mutex> lock(list.mutex);
        if (bundle->layout != kernel_bundle_layout) {
            list.refused.push_back(
                std::string("the kernels of target '") +
                (bundle->origin != nullptr ? bundle->origin : "(unnamed)") +
                "' were embedded for kernel bundle layout " + std::to_string(bundle->layout) +
                ", but this libdualrt reads layout " + std::to_string(kernel_bundle_layout) +
                " (rebuild the target against this dualrt)");
            return;
        }
        if (std::find(list.bundles.begin(), list.bundles.end(), bundle) == list.bundles.end())
            list.bundles.push_back(bundle);
    } catch (...) {
        // Out of memory while a program starts: nothing sensible to report to; the kernels are
        // then reported missing when asked for.
    }
}

void unregister_kernel_bundle(const KernelBundle* bundle) noexcept {
    BundleList& list = bundle_list();
    std::lock_guard<std::mutex> lock(list.mutex);
    list.bundles.erase(std::remove(list.bundles.begin(), list.bundles.end(), bundle),
                      list.bundles.end());
}

std::optional<UserKernelFile> find_user_kernel(Backend backend, const std::string& name) {
    BundleList& list = bundle_list();
    std::lock_guard<std::mutex> lock(list.mutex);
    std::optional<UserKernelFile> found;
    for (const KernelBundle* bundle : list.bundles) {
        const EmbeddedKernelTable* table = source_table(*bundle, backend);
        if (table == nullptr) continue;
        for (std::size_t f = 0; f < table->count; ++f) {
            const EmbeddedKernelFile& file = table->files[f];
            if (!std::count(file.kernel_names, file.kernel_names + file.kernel_count, name))
                continue;
            UserKernelFile candidate = copy_of(*bundle, backend, f);
            if (found) {
                raise_argument("Device::kernel",
                               "kernel '" + name + "' is defined twice: in " +
                                   found->describe(backend) + " and in " +
                                   candidate.describe(backend) +
                                   "; kernel names must be unique across a program, so rename one");
            }
            found = std::move(candidate);
        }
    }
    return found;
}

std::vector<std::string> user_kernel_names(Backend backend) {
    BundleList& list = bundle_list();
    std::lock_guard<std::mutex> lock(list.mutex);
    std::vector<std::string> names;
    for (const KernelBundle* bundle : list.bundles) {
        const EmbeddedKernelTable* table = source_table(*bundle, backend);
        if (table == nullptr) continue;
        for (std::size_t f = 0; f < table->count; ++f) {
            const EmbeddedKernelFile& file = table->files[f];
            names.insert(names.end(), file.kernel_names, file.kernel_names + file.kernel_count);
        }
    }
    return names;
}

std::string refused_bundles() {
    BundleList& list = bundle_list();
    std::lock_guard<std::mutex> lock(list.mutex);
    std::string text;
    for (const auto& reason : list.refused) text += (text.empty() ? "" : "; ") + reason;
    return text;
}

void raise_kernel_defined_twice(Backend backend, const std::string& name,
                                const std::string& builtin, const UserKernelFile& user,
                                const std::string& device) {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = to_string(backend);
    info.call = "Device::kernel";
    info.context = device;
    info.detail = "kernel '" + name + "' is both a built-in kernel of " + builtin +
                  " and a kernel of " + user.describe(backend) + "; rename the one in " +
                  user.describe(backend);
    raise(std::move(info));
}

}  // namespace dualrt::detail
