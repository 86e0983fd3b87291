// load_native_baseline: finds libdualrt_native_<backend>.so, dlopens it and creates the baseline
// for the device dualrt selected. Only the module links the vendor library, so the benchmarks that
// use this run on machines with either backend alone.
#include "module_search.hpp"
#include "native_baseline.hpp"
#include "native_module.hpp"

#include <dlfcn.h>

#include <string>

namespace dualrt::bench {
namespace {

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
    const std::string path = find_module(file, backend, looked_in);
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
    const Kernel triad = device.kernel("triad");
    const Kernel stencil = device.kernel("stencil_blur3x3");
    const Kernel jacobi = device.kernel("jacobi_rows");
    const dualrt_native_handles handles{DUALRT_NATIVE_API_VERSION, device.native_handle(),
                                        device.native_context(),     empty.native_handle(),
                                        busy.native_handle(),        triad.native_handle(),
                                        stencil.native_handle(),     jacobi.native_handle()};
    std::unique_ptr<NativeBaseline> baseline(create(&handles));
    if (!baseline) unavailable(backend, path + " created no baseline");
    return baseline;
}

}  // namespace dualrt::bench
