#include "nccl_api.hpp"

#include "mpi_check.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace dualrt::mpi::detail::nccl {
namespace {

inline constexpr const char* env_library = "DUALRT_NCCL_LIBRARY";

template <typename F> bool resolve(void* handle, const char* name, F& function, std::string& why) {
    function = reinterpret_cast<F>(dlsym(handle, name));
    if (function == nullptr && why.empty()) why = std::string("it lacks ") + name;
    return function != nullptr;
}

struct Loaded {
    Library library{};
    bool usable = false;
    std::string why;
};

Loaded load() {
    Loaded loaded;
    const char* name = std::getenv(env_library);
    const std::string path = name != nullptr && *name != '\0' ? name : "libnccl.so.2";
    // Never unloaded: NCCL's threads may outlive any object of ours.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* error = dlerror();
        loaded.why = path + " could not be loaded (" + (error ? error : "unknown error") + ")";
        return loaded;
    }
    Library& l = loaded.library;
    std::string missing;
    resolve(handle, "ncclGetVersion", l.get_version, missing);
    resolve(handle, "ncclGetUniqueId", l.get_unique_id, missing);
    resolve(handle, "ncclCommInitRankConfig", l.comm_init_rank_config, missing);
    resolve(handle, "ncclCommGetAsyncError", l.comm_get_async_error, missing);
    resolve(handle, "ncclGroupStart", l.group_start, missing);
    resolve(handle, "ncclGroupEnd", l.group_end, missing);
    resolve(handle, "ncclCommFinalize", l.comm_finalize, missing);
    resolve(handle, "ncclCommAbort", l.comm_abort, missing);
    resolve(handle, "ncclCommDestroy", l.comm_destroy, missing);
    resolve(handle, "ncclGetErrorString", l.get_error_string, missing);
    resolve(handle, "ncclGetLastError", l.get_last_error, missing);
    resolve(handle, "ncclSend", l.send, missing);
    resolve(handle, "ncclRecv", l.recv, missing);
    resolve(handle, "ncclBroadcast", l.broadcast, missing);
    resolve(handle, "ncclAllReduce", l.all_reduce, missing);
    if (!missing.empty()) {
        loaded.why = path + " is too old for dualrt (" + missing + "; NCCL 2.14 or newer needed)";
        return loaded;
    }
    if (l.get_version(&l.version) != success || l.version < 21400) {
        loaded.why = path + " is NCCL " + l.version_string() + "; dualrt needs 2.14 or newer";
        return loaded;
    }
    loaded.usable = true;
    return loaded;
}

// The CUDA driver's context calls, from the libcuda the CUDA backend has loaded already.
struct Driver {
    int (*get_current)(void**) = nullptr;
    int (*set_current)(void*) = nullptr;
};

const Driver& driver() {
    static const Driver loaded = [] {
        Driver d;
        if (void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD)) {
            d.get_current = reinterpret_cast<int (*)(void**)>(dlsym(handle, "cuCtxGetCurrent"));
            d.set_current = reinterpret_cast<int (*)(void*)>(dlsym(handle, "cuCtxSetCurrent"));
        }
        return d;
    }();
    return loaded;
}

}  // namespace

std::string Library::version_string() const {
    // NCCL_VERSION: X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z after.
    const int major = version >= 10000 ? version / 10000 : version / 1000;
    const int minor = version >= 10000 ? version / 100 % 100 : version / 100 % 10;
    return std::to_string(major) + "." + std::to_string(minor) + "." +
           std::to_string(version % 100);
}

const Library* library(std::string& why) {
    static std::once_flag once;
    static Loaded loaded;
    std::call_once(once, [] { loaded = load(); });
    if (!loaded.usable) {
        why = loaded.why;
        return nullptr;
    }
    return &loaded.library;
}

CurrentDevice::CurrentDevice(const Device& device) {
    const Driver& d = driver();
    void* context = reinterpret_cast<void*>(device.native_context());
    if (d.get_current == nullptr || d.set_current == nullptr)
        raise(Errc::backend_failure, "dualrt::mpi (NCCL)",
              "the CUDA driver's context calls cannot be found in the loaded libcuda.so.1");
    if (d.get_current(&previous_) != 0) previous_ = nullptr;
    if (previous_ == context) return;
    if (d.set_current(context) != 0)
        raise(Errc::backend_failure, "dualrt::mpi (NCCL)",
              "cuCtxSetCurrent failed for " + device.info().name);
    changed_ = true;
}

CurrentDevice::~CurrentDevice() {
    if (changed_) driver().set_current(previous_);
}

std::string describe_failure(const Library& nccl, const char* call, Result result, Comm comm) {
    std::string text = std::string("NCCL ") + call + ": " + nccl.get_error_string(result);
    const char* last = nccl.get_last_error(comm);
    if (last != nullptr && *last != '\0') text += std::string(" (") + last + ")";
    return text;
}

}  // namespace dualrt::mpi::detail::nccl
