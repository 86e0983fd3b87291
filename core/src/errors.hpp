// Helpers for raising dualrt::Error from the core and the backends. Internal.
#pragma once

#include <dualrt/error.hpp>

#include <cstddef>
#include <string>

namespace dualrt::detail {

[[noreturn]] void raise(ErrorInfo info);

// An argument check in the core failed: `operation` is the public call ("Queue::copy"),
// `detail` says what was given and what is allowed.
[[noreturn]] void raise_argument(const std::string& operation, const std::string& detail,
                                 Errc errc = Errc::invalid_argument);

// "4096 B", "1.5 MiB", ... for messages.
std::string format_bytes(std::size_t bytes);

}  // namespace dualrt::detail
