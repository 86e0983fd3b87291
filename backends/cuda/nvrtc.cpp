// NVRTC through dlopen: the functions used, looked up once; a program compiled per call.
#include "nvrtc.hpp"

#include "kernels/embedded_kernels.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <nvrtc.h>

#include <dlfcn.h>

#include <algorithm>
#include <iterator>
#include <utility>

// The embedded kernels/cu/dualrt_kernel.cuh (dualrt_embed_kernels in CMake).
const dualrt::detail::EmbeddedKernelTable& dualrt_cuda_header_table();

namespace dualrt::cuda {
namespace {

// The NVRTC entry points dualrt uses, with the types nvrtc.h declares.
struct Nvrtc {
    decltype(&nvrtcVersion) version = nullptr;
    decltype(&nvrtcGetErrorString) error_string = nullptr;
    decltype(&nvrtcCreateProgram) create = nullptr;
    decltype(&nvrtcDestroyProgram) destroy = nullptr;
    decltype(&nvrtcCompileProgram) compile = nullptr;
    decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
    decltype(&nvrtcGetProgramLog) log = nullptr;
    decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
    decltype(&nvrtcGetCUBIN) cubin = nullptr;
    decltype(&nvrtcGetPTXSize) ptx_size = nullptr;
    decltype(&nvrtcGetPTX) ptx = nullptr;
    decltype(&nvrtcGetNumSupportedArchs) arch_count = nullptr;
    decltype(&nvrtcGetSupportedArchs) archs = nullptr;
    std::string library;  // the file that was loaded, for messages
    std::string failure;  // why NVRTC could not be loaded; empty when it was
};

template <typename Function>
bool find(void* handle, const char* symbol, Function& function, std::string& failure) {
    function = reinterpret_cast<Function>(dlsym(handle, symbol));
    if (function == nullptr && failure.empty()) {
        failure = std::string("it has no symbol ") + symbol + " (too old an NVRTC?)";
    }
    return function != nullptr;
}

Nvrtc load() {
    Nvrtc nvrtc;
    // By soname first (LD_LIBRARY_PATH, the module's runpath, the system), then in the toolkit
    // this module was built with.
    const char* candidates[] = {DUALRT_NVRTC_SONAME, DUALRT_NVRTC_TOOLKIT_PATH};
    void* handle = nullptr;
    std::string tried;
    for (const char* candidate : candidates) {
        handle = dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
        if (handle != nullptr) {
            nvrtc.library = candidate;
            break;
        }
        const char* error = dlerror();
        tried += std::string(tried.empty() ? "" : "; ") + (error != nullptr ? error : candidate);
    }
    if (handle == nullptr) {
        nvrtc.failure = "NVRTC could not be loaded (" + tried +
                        "); install the CUDA Toolkit's NVRTC " DUALRT_CUDA_TOOLKIT_VERSION
                        " or newer of the same major version, or add its folder to "
                        "LD_LIBRARY_PATH. Built-in kernels do not need it";
        return nvrtc;
    }
    // The handle stays open for the process's lifetime: the functions are used until exit.
    std::string missing;
    find(handle, "nvrtcVersion", nvrtc.version, missing);
    find(handle, "nvrtcGetErrorString", nvrtc.error_string, missing);
    find(handle, "nvrtcCreateProgram", nvrtc.create, missing);
    find(handle, "nvrtcDestroyProgram", nvrtc.destroy, missing);
    find(handle, "nvrtcCompileProgram", nvrtc.compile, missing);
    find(handle, "nvrtcGetProgramLogSize", nvrtc.log_size, missing);
    find(handle, "nvrtcGetProgramLog", nvrtc.log, missing);
    find(handle, "nvrtcGetCUBINSize", nvrtc.cubin_size, missing);
    find(handle, "nvrtcGetCUBIN", nvrtc.cubin, missing);
    find(handle, "nvrtcGetPTXSize", nvrtc.ptx_size, missing);
    find(handle, "nvrtcGetPTX", nvrtc.ptx, missing);
    find(handle, "nvrtcGetNumSupportedArchs", nvrtc.arch_count, missing);
    find(handle, "nvrtcGetSupportedArchs", nvrtc.archs, missing);
    if (!missing.empty()) nvrtc.failure = nvrtc.library + " is not usable: " + missing;
    return nvrtc;
}

// Loaded on first use; a failure is remembered and reported by every call.
const Nvrtc& library() {
    static const Nvrtc nvrtc = load();
    return nvrtc;
}

[[noreturn]] void raise(Errc errc, const char* call, nvrtcResult code, const Nvrtc& nvrtc,
                        std::string context, std::string detail) {
    ErrorInfo info;
    info.errc = errc;
    info.backend = "cuda";
    info.call = call;
    info.code = static_cast<std::int64_t>(code);
    if (nvrtc.error_string != nullptr && code != NVRTC_SUCCESS) {
        info.code_name = nvrtc.error_string(code);
    }
    info.context = std::move(context);
    info.detail = std::move(detail);
    detail::raise(std::move(info));
}

// The newest architecture this NVRTC compiles for, or 0 when it cannot say.
int newest_arch(const Nvrtc& nvrtc) {
    int count = 0;
    if (nvrtc.arch_count(&count) != NVRTC_SUCCESS || count <= 0) return 0;
    std::vector<int> archs(static_cast<std::size_t>(count));
    if (nvrtc.archs(archs.data()) != NVRTC_SUCCESS) return 0;
    return *std::max_element(archs.begin(), archs.end());
}

// Destroys the program at the end of the scope, whatever happens.
struct ProgramGuard {
    const Nvrtc& nvrtc;
    nvrtcProgram program = nullptr;
    ~ProgramGuard() {
        if (program != nullptr) nvrtc.destroy(&program);
    }
};

std::string program_log(const Nvrtc& nvrtc, nvrtcProgram program) {
    std::size_t size = 0;
    if (nvrtc.log_size(program, &size) != NVRTC_SUCCESS || size <= 1) {
        return "(NVRTC gave no log)";
    }
    std::string text(size, '\0');
    if (nvrtc.log(program, text.data()) != NVRTC_SUCCESS) return "(NVRTC's log is unreadable)";
    text.resize(size - 1);  // the terminating NUL
    return text;
}

}  // namespace

std::vector<char> compile_with_nvrtc(const std::string& source, const std::string& name,
                                     int compute_capability, const std::string& device) {
    const Nvrtc& nvrtc = library();
    const std::string context = "compiling kernel source '" + name + "' for " + device;
    if (!nvrtc.failure.empty()) {
        raise(Errc::unavailable, "dlopen", NVRTC_SUCCESS, nvrtc, context, nvrtc.failure);
    }
    // SASS for this GPU when NVRTC knows it; else PTX of the newest it knows, which the driver
    // compiles for the GPU.
    const int newest = newest_arch(nvrtc);
    const bool sass = newest == 0 || compute_capability <= newest;
    const std::string arch = sass ? "--gpu-architecture=sm_" + std::to_string(compute_capability)
                                  : "--gpu-architecture=compute_" + std::to_string(newest);
    const std::string file = name + ".cu";

    const dualrt::detail::EmbeddedKernelFile& header = dualrt_cuda_header_table().files[0];
    const std::string header_text(reinterpret_cast<const char*>(header.data), header.size);
    const char* header_texts[] = {header_text.c_str()};
    const char* header_names[] = {"dualrt_kernel.cuh"};

    ProgramGuard guard{nvrtc};
    nvrtcResult result = nvrtc.create(&guard.program, source.c_str(), file.c_str(), 1,
                                      header_texts, header_names);
    if (result != NVRTC_SUCCESS) {
        raise(Errc::backend_failure, "nvrtcCreateProgram", result, nvrtc, context,
              "NVRTC refused the program");
    }
    const char* options[] = {arch.c_str(), "--std=c++17"};
    detail::log().debug("CUDA: {} with {} ({})", context, arch, nvrtc.library);
    result = nvrtc.compile(guard.program, static_cast<int>(std::size(options)), options);
    if (result != NVRTC_SUCCESS) {
        raise(result == NVRTC_ERROR_COMPILATION ? Errc::compile_error : Errc::backend_failure,
              "nvrtcCompileProgram", result, nvrtc, context + " with " + arch,
              "build log:\n" + program_log(nvrtc, guard.program));
    }

    std::size_t size = 0;
    std::vector<char> image;
    if (sass) {
        result = nvrtc.cubin_size(guard.program, &size);
        if (result == NVRTC_SUCCESS) {
            image.resize(size);
            result = nvrtc.cubin(guard.program, image.data());
        }
    } else {
        result = nvrtc.ptx_size(guard.program, &size);
        if (result == NVRTC_SUCCESS) {
            image.resize(size);
            result = nvrtc.ptx(guard.program, image.data());
        }
    }
    if (result != NVRTC_SUCCESS) {
        raise(Errc::backend_failure, sass ? "nvrtcGetCUBIN" : "nvrtcGetPTX", result, nvrtc, context,
              "NVRTC compiled the source but did not hand over the result");
    }
    return image;
}

}  // namespace dualrt::cuda
