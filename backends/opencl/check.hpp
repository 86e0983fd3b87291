// CL_CHECK: the one way the OpenCL backend calls OpenCL. CLHPP reports a failing call by throwing
// cl::Error; CL_CHECK catches it at the call site and throws dualrt::Error carrying the call as
// written, the numeric code and its symbolic name, the object being worked on and file:line.
#pragma once

#include "cl.hpp"

#include <exception>
#include <string>

namespace dualrt::opencl {

// Whether a failing call allocates memory: there, CL_OUT_OF_RESOURCES and CL_INVALID_BUFFER_SIZE
// also mean "out of memory". Elsewhere CL_OUT_OF_RESOURCES usually means a kernel fault.
// What a failing call was doing, which decides the Errc of some codes: out-of-resources while
// allocating is out_of_memory; while waiting for work (clFinish, clWaitForEvents) it, an
// invalidated queue or NVIDIA's -9999 mean a command failed on the device: device_lost.
enum class CallKind { other, allocation, synchronization };

// "CL_INVALID_VALUE" for -30, "CL_PLATFORM_NOT_FOUND_KHR" for -1001, ... and
// "unknown OpenCL error" for codes no specification or extension defines. Never throws.
const char* error_name(cl_int code) noexcept;

// Throws dualrt::Error (backend "opencl") for a cl::Error caught at `file`:`line` while running
// `call`; `context` names the object and sizes. A cl::BuildError becomes Errc::compile_error with
// every device's build log in the detail.
[[noreturn]] void raise_cl_error(const cl::Error& error, const char* call, std::string context,
                                 const char* file, int line, CallKind kind);

// Logs a failure in a destructor or another place that must not throw. Never throws.
void log_cl_error(const cl::Error& error, const char* call, const std::string& context,
                  const char* file, int line) noexcept;
void log_cl_failure(const char* what, const char* call, const char* file, int line) noexcept;

}  // namespace dualrt::opencl

// Evaluates `expr` (a CLHPP call, which may yield a value: `auto b = CL_CHECK(cl::Buffer(...),
// describe())`) and converts a cl::Error into dualrt::Error. `context` is a std::string
// expression evaluated only when the call fails.
#define CL_CHECK(expr, context) \
    DUALRT_CL_CHECK_KIND(expr, context, ::dualrt::opencl::CallKind::other)

// CL_CHECK for calls that allocate memory (buffer creation, mapping): memory-shortage codes become
// Errc::out_of_memory.
#define CL_CHECK_ALLOC(expr, context) \
    DUALRT_CL_CHECK_KIND(expr, context, ::dualrt::opencl::CallKind::allocation)

// CL_CHECK for calls that wait for work on the device (clFinish): a failed command is
// Errc::device_lost.
#define CL_CHECK_SYNC(expr, context) \
    DUALRT_CL_CHECK_KIND(expr, context, ::dualrt::opencl::CallKind::synchronization)

#define DUALRT_CL_CHECK_KIND(expr, context, kind)                                               \
    ([&]() -> decltype(auto) {                                                                  \
        try {                                                                                   \
            return expr;                                                                        \
        } catch (const ::cl::Error& dualrt_cl_error_) {                                         \
            ::dualrt::opencl::raise_cl_error(dualrt_cl_error_, #expr, (context), __FILE__,      \
                                             __LINE__, (kind));                                 \
        }                                                                                       \
    }())

// For destructors: runs `expr` (whose value is discarded), logs any failure with `context` through
// the dualrt logger and never throws.
#define CL_CHECK_NOTHROW(expr, context)                                                         \
    do {                                                                                        \
        try {                                                                                   \
            static_cast<void>(expr);                                                            \
        } catch (const ::cl::Error& dualrt_cl_error_) {                                         \
            try {                                                                               \
                ::dualrt::opencl::log_cl_error(dualrt_cl_error_, #expr, (context), __FILE__,    \
                                               __LINE__);                                       \
            } catch (...) {                                                                     \
                ::dualrt::opencl::log_cl_failure("the error report failed", #expr, __FILE__,    \
                                                 __LINE__);                                     \
            }                                                                                   \
        } catch (const std::exception& dualrt_other_error_) {                                   \
            ::dualrt::opencl::log_cl_failure(dualrt_other_error_.what(), #expr, __FILE__,       \
                                             __LINE__);                                         \
        } catch (...) {                                                                         \
            ::dualrt::opencl::log_cl_failure("unknown exception", #expr, __FILE__, __LINE__);   \
        }                                                                                       \
    } while (false)
