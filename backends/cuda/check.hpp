// CU_CHECK: the one way the CUDA backend calls the driver API. A failing call becomes a
// dualrt::Error carrying the call as written, the CUresult and its name, the object being worked
// on and file:line. (The OpenCL twin wraps CLHPP's exceptions; the driver API returns codes.)
#pragma once

#include <cuda.h>

#include <string>

namespace dualrt::cuda {

// Whether a failing call allocates memory, so that its shortage reads as "out of memory".
enum class CallKind { other, allocation };

// "CUDA_ERROR_INVALID_VALUE" for 1, ... and "unknown CUDA error" for codes the driver does not
// name. Never throws.
const char* error_name(CUresult code) noexcept;

// Throws dualrt::Error (backend "cuda") for `code`, returned by `call` at `file`:`line`;
// `context` names the object and sizes.
[[noreturn]] void raise_cu_error(CUresult code, const char* call, std::string context,
                                 const char* file, int line, CallKind kind);

// Logs a failure in a destructor or another place that must not throw. Never throws.
void log_cu_error(CUresult code, const char* call, const std::string& context, const char* file,
                  int line) noexcept;

}  // namespace dualrt::cuda

// Runs `expr` (a driver API call returning CUresult) and throws dualrt::Error when it fails.
// `context` is a std::string expression evaluated only on failure.
#define CU_CHECK(expr, context) \
    DUALRT_CU_CHECK_KIND(expr, context, ::dualrt::cuda::CallKind::other)

// CU_CHECK for calls that allocate memory: CUDA_ERROR_OUT_OF_MEMORY becomes Errc::out_of_memory.
#define CU_CHECK_ALLOC(expr, context) \
    DUALRT_CU_CHECK_KIND(expr, context, ::dualrt::cuda::CallKind::allocation)

#define DUALRT_CU_CHECK_KIND(expr, context, kind)                                               \
    do {                                                                                        \
        const CUresult dualrt_cu_result_ = (expr);                                              \
        if (dualrt_cu_result_ != CUDA_SUCCESS) {                                                \
            ::dualrt::cuda::raise_cu_error(dualrt_cu_result_, #expr, (context), __FILE__,       \
                                           __LINE__, (kind));                                   \
        }                                                                                       \
    } while (false)

// For destructors: runs `expr`, logs a failure with `context` through the dualrt logger and never
// throws. `context` must not throw either (build it from noexcept pieces or accept std::terminate
// on allocation failure, as for any std::string in a destructor).
#define CU_CHECK_NOTHROW(expr, context)                                                         \
    do {                                                                                        \
        const CUresult dualrt_cu_result_ = (expr);                                              \
        if (dualrt_cu_result_ != CUDA_SUCCESS) {                                                \
            ::dualrt::cuda::log_cu_error(dualrt_cu_result_, #expr, (context), __FILE__,         \
                                         __LINE__);                                             \
        }                                                                                       \
    } while (false)
