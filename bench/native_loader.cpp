// load_native_baseline: finds libdualrt_native_<backend>.so, dlopens it and creates the baseline
// for the device dualrt selected. Only the module links the vendor library, so the samples that
// use this run on machines with either backend alone.
#include "native_baseline.hpp"
#include "native_module.hpp"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace dualrt::bench {
namespace {

bool is_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string folder_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string executable_folder() {
    std::vector<char> buffer(4096);
    const ssize_t length = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
    if (length <= 0) return {};
    return folder_of(std::string(buffer.data(), static_cast<std::size_t>(length)));
}

// Where to look, in order: next to the running program, each DUALRT_PLUGIN_PATH folder, then the
// folder the device's backend module was loaded from (next to libdualrt.so), which is where the
// build puts the baseline modules too.
std::vector<std::string> search_folders(Backend backend) {
    std::vector<std::string> folders;
    const auto add = [&](const std::string& folder) {
        if (!folder.empty() && std::find(folders.begin(), folders.end(), folder) == folders.end())
            folders.push_back(folder);
    };
    add(executable_folder());
    if (const char* extra = std::getenv(env_plugin_path)) {
        const std::string list = extra;
        std::size_t start = 0;
        while (start <= list.size()) {
            const auto end = list.find(':', start);
            add(list.substr(start, end == std::string::npos ? std::string::npos : end - start));
            if (end == std::string::npos) break;
            start = end + 1;
        }
    }
    for (const auto& status : backends())
        if (status.backend == backend && status.available) add(folder_of(status.module_path));
    return folders;
}

[[noreturn]] void unavailable(Backend backend, const std::string& detail) {
    ErrorInfo info;
    info.errc = Errc::unavailable;
    info.backend = to_string(backend);
    info.call = "load_native_baseline";
    info.detail = detail;
    throw Error(std::move(info));
}

}  // namespace

std::unique_ptr<NativeBaseline> load_native_baseline(const Device& device) {
    const Backend backend = device.backend();
    const std::string file = std::string("libdualrt_native_") + to_string(backend) + ".so";
    std::string looked_in;
    std::string path;
    for (const auto& folder : search_folders(backend)) {
        if (is_file(folder + "/" + file)) {
            path = folder + "/" + file;
            break;
        }
        looked_in += (looked_in.empty() ? "" : ", ") + folder;
    }
    if (path.empty())
        unavailable(backend, "the native baseline module " + file + " was not found (looked in: " +
                                 looked_in + "; set " + env_plugin_path +
                                 " to its folder); is this build without the " +
                                 to_string(backend) + " backend?");

    // Never dlclosed: vendor runtimes do not survive being unloaded (as for backend modules).
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* error = ::dlerror();
        unavailable(backend,
                    "cannot load " + path + ": " + (error ? error : "unknown dlopen error"));
    }
    auto create =
        reinterpret_cast<dualrt_native_create_fn>(::dlsym(handle, DUALRT_NATIVE_ENTRY_NAME));
    if (create == nullptr)
        unavailable(backend, path + " is not a dualrt native baseline module (no " +
                                 DUALRT_NATIVE_ENTRY_NAME + " symbol)");

    // Looking the kernels up builds their programs now, outside any timing. The Kernels are
    // held until the module has made its own objects from their handles.
    const Kernel empty = device.kernel("empty");
    const Kernel busy = device.kernel("busy");
    const dualrt_native_handles handles{DUALRT_NATIVE_API_VERSION, device.native_handle(),
                                        device.native_context(), empty.native_handle(),
                                        busy.native_handle()};
    std::unique_ptr<NativeBaseline> baseline(create(&handles));
    if (!baseline) unavailable(backend, path + " created no baseline");
    return baseline;
}

}  // namespace dualrt::bench
