/// @file
/// dualrt::Error: the one exception type the library throws.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace dualrt {

/// What went wrong, independent of the backend. Tests and callers branch on this;
/// the message is for people.
enum class Errc {
    /// a value given to the API is not allowed (sizes, ranges, kernel arguments)
    invalid_argument,
    out_of_range,      ///< an offset/length reaches past the end of a buffer
    not_found,         ///< no such backend, device or kernel
    unavailable,       ///< a backend exists but cannot be used here (no driver, no device)
    out_of_memory,     ///< device or pinned host memory exhausted
    compile_error,     ///< a kernel source failed to build; the message holds the full log
    backend_failure,   ///< any other failing CUDA/OpenCL call
    io_error,          ///< a file could not be written or read (trace export, kernel files)
    /// a kernel faulted (an illegal address, a trap) or the device failed: its CUDA context or
    /// OpenCL queue is unusable, and every later call on the device fails the same way until the
    /// process exits. The message names the kernels that may have faulted.
    device_lost,
};

/// The value's name as written in the enum, such as "invalid_argument".
const char* to_string(Errc errc) noexcept;

/// Everything a failure report needs, filled by the code that detects it.
struct ErrorInfo {
    Errc errc = Errc::backend_failure;  ///< what went wrong, for code to branch on
    std::string backend;    ///< "cuda", "opencl", or "dualrt" for the library's own checks
    std::string call;       ///< the failing call as written, e.g. "clEnqueueWriteBuffer(...)"
    std::int64_t code = 0;  ///< the native error code (0 where there is none)
    std::string code_name;  ///< its symbolic name, e.g. "CL_INVALID_VALUE"
    std::string context;    ///< what it was working on: device, kernel, sizes
    std::string detail;     ///< free text: what was expected, what exists, a build log
};

/// Thrown by every dualrt operation that fails. The library never calls exit() or abort();
/// after an Error the library stays usable.
///
/// what() reads `<backend>: <call> failed with <code_name> (<code>): <detail> [<context>]`, the
/// empty parts left out; a check of the library's own reads `dualrt: Queue::copy: <detail>`.
class __attribute__((visibility("default"))) Error : public std::runtime_error {
public:
    /// An error reporting `info`; the message (what()) is composed from it.
    explicit Error(ErrorInfo info);
    /// Out of line on purpose: the destructor is the class's key function, so its type_info lives
    /// in libdualrt alone (exported), and an Error thrown inside a backend module is caught as the
    /// same type in the core and in applications, whatever visibility the module was built with.
    ~Error() override;
    Error(const Error&) = default;             ///< copies the message and the ErrorInfo
    Error& operator=(const Error&) = default;  ///< copies the message and the ErrorInfo

    Errc errc() const noexcept { return info_.errc; }  ///< what went wrong, for code to branch on
    /// "cuda", "opencl", or "dualrt" for the library's own checks.
    const std::string& backend() const noexcept { return info_.backend; }
    /// The failing call as written, e.g. "clEnqueueWriteBuffer(...)".
    const std::string& call() const noexcept { return info_.call; }
    /// The native error code (0 where there is none).
    std::int64_t code() const noexcept { return info_.code; }
    /// The native code's symbolic name, e.g. "CL_INVALID_VALUE".
    const std::string& code_name() const noexcept { return info_.code_name; }
    /// What it was working on: device, kernel, sizes.
    const std::string& context() const noexcept { return info_.context; }
    /// Free text: what was expected, what exists, a build log.
    const std::string& detail() const noexcept { return info_.detail; }
    /// All of the above, e.g. to rethrow with more detail.
    const ErrorInfo& info() const noexcept { return info_; }

private:
    ErrorInfo info_;
};

}  // namespace dualrt
