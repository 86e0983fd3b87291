// Helpers for raising dualrt::Error from the core and the backends. Internal.
#pragma once

#include <dualrt/error.hpp>
#include <dualrt/types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace dualrt::detail {

[[noreturn]] void raise(ErrorInfo info);

// An argument check in the core failed: `operation` is the public call ("Queue::copy"),
// `detail` says what was given and what is allowed.
[[noreturn]] void raise_argument(const std::string& operation, const std::string& detail,
                                 Errc errc = Errc::invalid_argument);

// A failure a backend finds with the driver's help rather than one failing call: a handle given
// to wrap_* that is not what was asked for, an event without a timestamp. `code` and `code_name`
// are those of the call that failed, or 0 and "" when the call succeeded and its answer was the
// wrong one.
[[noreturn]] void raise_finding(Errc errc, const char* backend, std::string call,
                                std::int64_t code, std::string code_name, std::string context,
                                std::string detail);

// "4096 B", "1.5 MiB", ... for messages.
std::string format_bytes(std::size_t bytes);

// A host address as messages show it: "0x7f12a4000000".
std::string address_text(const void* address);

// A device as messages name it: "'NVIDIA H200' (cuda device 0)". The backend and index tell
// apart the CUDA and OpenCL views of one GPU, which share a name.
std::string device_label(const DeviceInfo& info);

}  // namespace dualrt::detail
