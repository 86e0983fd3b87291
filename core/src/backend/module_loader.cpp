#include "backend/module_loader.hpp"

#include <dualrt/runtime.hpp>

#include "support/environment.hpp"
#include "support/log.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace dualrt::detail {
namespace {

bool is_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string folder_of_this_library() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&module_search_path), &info) == 0 || !info.dli_fname)
        return {};
    // Resolved, so that messages show /usr/lib/dualrt rather than /usr/bin/../lib/dualrt.
    std::string path = info.dli_fname;
    if (char* resolved = ::realpath(info.dli_fname, nullptr)) {
        path = resolved;
        std::free(resolved);
    }
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// What provides the vendor libraries the backends link, for a user who lacks one.
std::string provider_of(const std::string& library) {
    if (library.rfind("libcuda.so", 0) == 0)
        return ": the NVIDIA driver is not installed (libcuda.so.1 comes with it, not with the "
               "CUDA Toolkit)";
    if (library.rfind("libOpenCL.so", 0) == 0)
        return ": no OpenCL ICD loader is installed (on Debian: apt-get install "
               "ocl-icd-libopencl1)";
    return "";
}

// dlerror() says "libOpenCL.so.1: cannot open shared object file: No such file or directory"
// when a library the module needs is missing; say that in the words users search for.
std::string explain_dlopen_failure(const std::string& module_path, const std::string& dl_error) {
    const std::string marker = ": cannot open shared object file";
    const auto pos = dl_error.find(marker);
    if (pos != std::string::npos) {
        auto start = dl_error.rfind(' ', pos);
        start = start == std::string::npos ? 0 : start + 1;
        const std::string missing = dl_error.substr(start, pos - start);
        if (missing.find("libdualrt_") == std::string::npos)
            return missing + " not found (needed by " + module_path + ")" + provider_of(missing);
    }
    return "cannot load " + module_path + ": " + dl_error;
}

}  // namespace

std::vector<std::string> module_search_path() {
    std::vector<std::string> folders = plugin_folders_from_environment(false);
    // Next to libdualrt.so in a build tree; in its dualrt/ subfolder once installed, so that the
    // modules, which nothing links, stay out of the linker's library folder.
    const auto own = folder_of_this_library();
    if (!own.empty()) {
        folders.push_back(own);
        folders.push_back(own + "/dualrt");
    }
    return folders;
}

LoadedModule load_backend_module(const std::string& name) {
    LoadedModule result;
    const std::string file = "libdualrt_" + name + ".so";
    std::string looked_in;
    for (const auto& folder : module_search_path()) {
        const auto candidate = folder + "/" + file;
        if (!is_file(candidate)) {
            looked_in += (looked_in.empty() ? "" : ", ") + folder;
            continue;
        }
        result.path = candidate;
        log().debug("loading backend module {}", candidate);
        void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* err = ::dlerror();
            result.reason = explain_dlopen_failure(candidate, err ? err : "unknown dlopen error");
            return result;
        }
        auto entry = reinterpret_cast<dualrt_backend_entry_fn>(
            ::dlsym(handle, DUALRT_BACKEND_ENTRY_NAME));
        if (entry == nullptr) {
            result.reason = candidate + " is not a dualrt backend module (no " +
                            DUALRT_BACKEND_ENTRY_NAME + " symbol)";
            return result;
        }
        const auto* descriptor = entry();
        if (descriptor == nullptr || descriptor->api_version != backend::api_version) {
            result.reason = candidate + " was built for backend API version " +
                            std::to_string(descriptor ? descriptor->api_version : -1) +
                            ", this libdualrt needs version " +
                            std::to_string(backend::api_version) + " (rebuild the module)";
            return result;
        }
        if (descriptor->name == nullptr || name != descriptor->name) {
            result.reason = candidate + " is the " +
                            (descriptor->name ? descriptor->name : std::string("unnamed")) +
                            " backend, not the " + name + " backend";
            return result;
        }
        result.descriptor = descriptor;
        return result;
    }
    result.path = file;
    result.reason = "backend module " + file + " not found (looked in: " +
                    (looked_in.empty() ? std::string("nowhere; set ") + env_plugin_path
                                       : looked_in) +
                    "); this dualrt build does not include the " + name + " backend";
    return result;
}

}  // namespace dualrt::detail
