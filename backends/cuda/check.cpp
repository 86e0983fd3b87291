// Turning a failed CUresult into dualrt::Error: the code's name and description from the driver,
// which errc it means, and what the user can do about the errors that poison a context.
#include "check.hpp"

#include "support/log.hpp"
#include "support/raise.hpp"

#include <cstring>
#include <string>
#include <utility>

namespace dualrt::cuda {
namespace {

Errc errc_for(CUresult code, CallKind kind) {
    switch (code) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        return Errc::out_of_memory;
    case CUDA_ERROR_INVALID_VALUE:
        // cuMemAlloc answers this for sizes no allocator could satisfy.
        return kind == CallKind::allocation ? Errc::out_of_memory : Errc::backend_failure;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        return Errc::unavailable;
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_IMAGE:
        return Errc::compile_error;
    default:
        return Errc::backend_failure;
    }
}

// Errors after which the CUDA context is unusable: every later call on it fails with the same
// code. Saying so spares users a hunt for the "second" failure.
bool poisons_context(CUresult code) {
    switch (code) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
        return true;
    default:
        return false;
    }
}

// "backends/cuda/queue.cpp" rather than the absolute path of the build machine.
const char* short_file(const char* file) {
    const char* tail = std::strstr(file, "backends/cuda/");
    return tail != nullptr ? tail : file;
}

std::string description(CUresult code) {
    const char* text = nullptr;
    if (cuGetErrorString(code, &text) != CUDA_SUCCESS || text == nullptr) {
        return "the driver has no description of this code";
    }
    return text;
}

}  // namespace

const char* error_name(CUresult code) noexcept {
    const char* name = nullptr;
    if (cuGetErrorName(code, &name) != CUDA_SUCCESS || name == nullptr) {
        return "unknown CUDA error";
    }
    return name;
}

void raise_cu_error(CUresult code, const char* call, std::string context, const char* file,
                    int line, CallKind kind) {
    ErrorInfo info;
    info.errc = errc_for(code, kind);
    info.backend = "cuda";
    info.call = call;
    info.code = static_cast<std::int64_t>(code);
    info.code_name = error_name(code);
    info.context = std::move(context);
    // The core's message already shows the code and its name next to `call`.
    info.detail = description(code) + " (called at " + short_file(file) + ":" +
                  std::to_string(line) + ")";
    if (poisons_context(code)) {
        info.errc = Errc::device_lost;
        info.detail +=
            "; a kernel faulted, which leaves this device's CUDA context unusable: every later "
            "call on the device fails the same way until the process exits (run the program "
            "under compute-sanitizer to find the faulting access)";
    }
    detail::raise(std::move(info));
}

void log_cu_error(CUresult code, const char* call, const std::string& context, const char* file,
                  int line) noexcept {
    try {
        if (code == CUDA_ERROR_DEINITIALIZED) {
            // Objects destroyed by static destructors at process exit, after the driver shut
            // down: the driver has freed everything already.
            detail::log().debug("CUDA: {} after the driver shut down [{}]; nothing to release",
                                call, context);
            return;
        }
        detail::log().error("CUDA: {} returned {} ({}) [{}] at {}:{}; ignored (cannot throw here)",
                            call, error_name(code), static_cast<int>(code), context,
                            short_file(file), line);
    } catch (...) {
        // Logging itself failed (e.g. DUALRT_LOG holds an unknown level): nothing else to do.
    }
}

}  // namespace dualrt::cuda
