// Helpers shared by the test suites: the device under test, fresh random inputs, poison values,
// element-wise comparison with readable reports, and a check for dualrt::Error.
#pragma once

#include <dualrt/dualrt.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

// doctest prints these in failed CHECKs by name instead of as "{?}".
namespace doctest {
template <>
struct StringMaker<dualrt::Errc> {
    static String convert(dualrt::Errc errc) { return dualrt::to_string(errc); }
};
template <>
struct StringMaker<dualrt::Backend> {
    static String convert(dualrt::Backend backend) { return dualrt::to_string(backend); }
};
}  // namespace doctest

namespace test {

// The device the conformance suite runs on, chosen once by its main() from DUALRT_BACKEND and
// DUALRT_DEVICE. Only the conformance executable defines it.
const dualrt::Device& device();

inline bool contains(std::string_view text, std::string_view needle) {
    return text.find(needle) != std::string_view::npos;
}

// Fresh random inputs for every run. Print the seed with INFO so a failure can be replayed:
//     test::Random rnd;
//     INFO("seed " << rnd.seed);
struct Random {
    std::uint32_t seed = std::random_device{}();
    std::mt19937 engine{seed};

    // Uniform in [lo, hi]; inclusive integer bounds.
    std::size_t size(std::size_t lo, std::size_t hi) {
        return std::uniform_int_distribution<std::size_t>(lo, hi)(engine);
    }
    float uniform(float lo, float hi) {
        return std::uniform_real_distribution<float>(lo, hi)(engine);
    }

    // Values in [lo, hi): no denormals, no NaN; for kernel inputs.
    std::vector<float> floats(std::size_t n, float lo = -1.0f, float hi = 1.0f) {
        std::uniform_real_distribution<float> dist(lo, hi);
        std::vector<float> out(n);
        for (auto& v : out) v = dist(engine);
        return out;
    }
    // Random bit patterns of finite floats of magnitude < 2 (any sign, denormals included):
    // cheap for large copies, and never equal to the NaN poison.
    std::vector<float> float_bits(std::size_t n) {
        std::vector<float> out(n);
        for (auto& v : out) {
            const std::uint32_t bits = static_cast<std::uint32_t>(engine()) & 0xBFFFFFFFu;
            std::memcpy(&v, &bits, sizeof v);
        }
        return out;
    }
    // Any bit pattern at all, for byte-exact operations on any trivially copyable T.
    template <typename T>
    T bits() {
        unsigned char bytes[sizeof(T)];
        for (auto& b : bytes) b = static_cast<unsigned char>(engine());
        T out;
        std::memcpy(&out, bytes, sizeof(T));
        return out;
    }
};

// Poison written into outputs before an operation, so an element it fails to write is caught.
inline float poison_float() { return std::numeric_limits<float>::quiet_NaN(); }
inline constexpr std::uint32_t poison_u32 = 0xDEADBEEFu;

// The bitwise complement of `value`: a poison guaranteed to differ from it in every byte.
template <typename T>
T complement(const T& value) {
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (auto& b : bytes) b = static_cast<unsigned char>(~b);
    T out;
    std::memcpy(&out, bytes, sizeof(T));
    return out;
}

template <typename T>
std::string show(const T& value) {
    char text[64];
    if constexpr (std::is_floating_point_v<T>) {
        std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
    } else if constexpr (std::is_integral_v<T>) {
        std::snprintf(text, sizeof text, "%llu (0x%llx)", static_cast<unsigned long long>(value),
                      static_cast<unsigned long long>(value));
    } else {
        unsigned char bytes[sizeof(T)];
        std::memcpy(bytes, &value, sizeof(T));
        std::string out = "bytes";
        for (auto b : bytes) {
            std::snprintf(text, sizeof text, " %02x", b);
            out += text;
        }
        return out;
    }
    return text;
}

// "" when actual[i] and expected[i] are the same bytes for every i; otherwise how many differ and
// the first few. Byte comparison makes a NaN poison left in the output a mismatch. Use as
//     CHECK(test::differences(actual, expected) == "");
template <typename T>
std::string differences(const T* actual, const T* expected, std::size_t n) {
    std::size_t count = 0;
    std::string report;
    for (std::size_t i = 0; i < n; ++i) {
        if (std::memcmp(&actual[i], &expected[i], sizeof(T)) == 0) continue;
        if (++count <= 5)
            report += " [" + std::to_string(i) + "] got " + show(actual[i]) + ", expected " +
                      show(expected[i]) + ";";
    }
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(n) + " elements differ:" + report;
}

template <typename T>
std::string differences(const std::vector<T>& actual, const std::vector<T>& expected) {
    if (actual.size() != expected.size())
        return "sizes differ: " + std::to_string(actual.size()) + " vs " +
               std::to_string(expected.size());
    return differences(actual.data(), expected.data(), actual.size());
}

// The element of saxpy as a device may compute it: `a * x + y` rounded twice, or contracted into
// one fma (OpenCL and nvcc both may contract). Either is correct, nothing else is.
inline bool saxpy_element_ok(float got, float a, float x, float y) {
    const float product = a * x;  // two roundings on the host: ISO C++ without -ffp-contract
    const float unfused = product + y;
    const float fused = std::fma(a, x, y);
    return got == unfused || got == fused;
}

// "" when every y_out[i] is a correct saxpy of x[i] and y_in[i]; otherwise the first mismatches.
inline std::string saxpy_differences(const std::vector<float>& y_out, float a,
                                     const std::vector<float>& x, const std::vector<float>& y_in) {
    std::size_t count = 0;
    std::string report;
    for (std::size_t i = 0; i < y_out.size(); ++i) {
        if (saxpy_element_ok(y_out[i], a, x[i], y_in[i])) continue;
        if (++count <= 5)
            report += " [" + std::to_string(i) + "] got " + show(y_out[i]) + ", expected " +
                      show(a * x[i] + y_in[i]) + ";";
    }
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(y_out.size()) +
           " elements wrong:" + report;
}

// Runs a saxpy of n random elements on `queue` and returns "" when the result is right, or what
// went wrong. Proves the device still works (after errors, from several threads).
inline std::string run_saxpy(dualrt::Queue& queue, std::size_t n, std::mt19937& engine) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    const float a = dist(engine);
    std::vector<float> x(n), y(n);
    for (auto& v : x) v = dist(engine);
    for (auto& v : y) v = dist(engine);
    const auto device = queue.device();
    auto dx = device.alloc<float>(n);
    auto dy = device.alloc<float>(n);
    queue.copy(dx, x);
    queue.copy(dy, y);
    queue.launch(device.kernel("saxpy"), n, dualrt::Range{}, static_cast<std::uint32_t>(n), a,
                 dx, dy);
    std::vector<float> out(n, poison_float());
    queue.copy(out, dy, dualrt::Sync::blocking);
    return saxpy_differences(out, a, x, y);
}

}  // namespace test

// Runs the statement(s) after the first two arguments, which must throw dualrt::Error with errc
// `expected_errc` and a message (what()) containing `needle`. Reports the caller's line.
#define CHECK_DUALRT_ERROR(expected_errc, needle, ...)                                      \
    do {                                                                                    \
        bool dualrt_thrown_ = false;                                                        \
        try {                                                                               \
            __VA_ARGS__;                                                                    \
        } catch (const dualrt::Error& dualrt_error_) {                                      \
            dualrt_thrown_ = true;                                                          \
            INFO("message: " << dualrt_error_.what());                                      \
            CHECK(dualrt_error_.errc() == (expected_errc));                                 \
            CHECK(test::contains(dualrt_error_.what(), needle));                            \
        }                                                                                   \
        CHECK_MESSAGE(dualrt_thrown_, "no dualrt::Error thrown by: " #__VA_ARGS__);         \
    } while (false)
