// A digest of the commands a recording holds: what each command does, on which lane, to which
// memory, with which kernel, geometry and scalar bytes. Two runs of code that enqueue the same
// commands digest alike; a changed scalar, buffer, size or kernel digests otherwise. By this a
// Pipeline tells whether a run enqueues what its recording holds without recording it again.
// Internal.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dualrt::detail {

class CommandDigest {
public:
    // FNV-1a over `bytes` bytes: a few words per command, so a byte loop is cheap enough, and
    // collisions between two runs' commands are what a 64-bit hash makes unlikely.
    void mix(const void* data, std::size_t bytes) noexcept {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < bytes; ++i) value_ = (value_ ^ p[i]) * prime;
    }
    template <typename... Values>
    void mix_values(const Values&... values) noexcept {
        (mix(&values, sizeof values), ...);
    }
    std::uint64_t value() const noexcept { return value_; }

private:
    static constexpr std::uint64_t prime = 1099511628211ull;
    std::uint64_t value_ = 14695981039346656037ull;  // FNV-1a's offset basis
};

}  // namespace dualrt::detail
