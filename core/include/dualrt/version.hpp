#pragma once

namespace dualrt {
inline constexpr int version_major = 0;
inline constexpr int version_minor = 1;
inline constexpr int version_patch = 0;
const char* version_string() noexcept;  // "0.1.0"
}  // namespace dualrt
