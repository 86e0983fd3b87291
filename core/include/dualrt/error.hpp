// dualrt::Error: the one exception type the library throws.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace dualrt {

// What went wrong, independent of the backend. Tests and callers branch on this;
// the message is for people.
enum class Errc {
    invalid_argument,  // a value given to the API is not allowed (sizes, ranges, kernel arguments)
    out_of_range,      // an offset/length reaches past the end of a buffer
    not_found,         // no such backend, device or kernel
    unavailable,       // a backend exists but cannot be used here (no driver, no device)
    out_of_memory,     // device or pinned host memory exhausted
    compile_error,     // a kernel source failed to build; the message holds the full log
    backend_failure,   // any other failing CUDA/OpenCL call
    io_error,          // a file could not be written or read (trace export)
};

const char* to_string(Errc errc) noexcept;

// Everything a failure report needs, filled by the code that detects it.
struct ErrorInfo {
    Errc errc = Errc::backend_failure;
    std::string backend;    // "cuda", "opencl", or "dualrt" for the library's own checks
    std::string call;       // the failing call as written, e.g. "clEnqueueWriteBuffer(...)"
    std::int64_t code = 0;  // the native error code (0 where there is none)
    std::string code_name;  // its symbolic name, e.g. "CL_INVALID_VALUE"
    std::string context;    // what it was working on: device, kernel, sizes
    std::string detail;     // free text: what was expected, what exists, a build log
};

// Thrown by every dualrt operation that fails. The library never calls exit() or abort();
// after an Error the library stays usable.
//
// The out-of-line destructor is the class's key function: its type_info then lives in libdualrt
// alone (exported), so an Error thrown inside a backend module is caught as the same type in the
// core and in applications, whatever visibility the module was built with.
class __attribute__((visibility("default"))) Error : public std::runtime_error {
public:
    explicit Error(ErrorInfo info);
    ~Error() override;
    Error(const Error&) = default;
    Error& operator=(const Error&) = default;

    Errc errc() const noexcept { return info_.errc; }
    const std::string& backend() const noexcept { return info_.backend; }
    const std::string& call() const noexcept { return info_.call; }
    std::int64_t code() const noexcept { return info_.code; }
    const std::string& code_name() const noexcept { return info_.code_name; }
    const std::string& context() const noexcept { return info_.context; }
    const std::string& detail() const noexcept { return info_.detail; }

private:
    ErrorInfo info_;
};

}  // namespace dualrt
