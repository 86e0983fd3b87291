// What the stress tests share: the run's seed and duration (chosen once by stress_main.cpp from
// DUALRT_STRESS_SEED and DUALRT_STRESS_SECONDS), seeded random engines, deadlines, the process's
// resident memory, and the CPU references of the built-in kernels the tests launch.
#pragma once

#include "../support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <vector>

namespace stress {

// The seed of this run: DUALRT_STRESS_SEED when set, else a fresh random one. Every random choice
// of every test derives from it, and every test prints it on failure (INFO), so that
// `DUALRT_STRESS_SEED=<seed>` replays the same choices. Threads make timing, and so how many
// operations a bounded run reaches, vary between runs; the sequence of choices does not.
std::uint32_t seed();

// How long the time-bounded tests run: DUALRT_STRESS_SECONDS (default 3, short enough for CI).
double seconds();

// One random engine per use, each its own stream of the run's seed, so that adding a stream
// (a thread, a test) changes no other stream's choices.
inline std::mt19937 engine(std::uint32_t stream) {
    std::seed_seq sequence{seed(), stream, 0x5747e55u};
    return std::mt19937(sequence);
}

inline std::size_t uniform(std::mt19937& rng, std::size_t lo, std::size_t hi) {
    return std::uniform_int_distribution<std::size_t>(lo, hi)(rng);
}
inline float uniform_float(std::mt19937& rng, float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
}
inline bool chance(std::mt19937& rng, double p) { return std::bernoulli_distribution(p)(rng); }

inline std::vector<float> floats(std::mt19937& rng, std::size_t n, float lo = -1.0f,
                                 float hi = 1.0f) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> out(n);
    for (auto& v : out) v = dist(rng);
    return out;
}
// Random bytes, four at a time from the engine: cheap for the multi-MiB copies.
inline std::vector<unsigned char> bytes(std::mt19937& rng, std::size_t n) {
    std::vector<unsigned char> out(n);
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const std::uint32_t word = rng();
        std::memcpy(out.data() + i, &word, 4);
    }
    for (; i < n; ++i) out[i] = static_cast<unsigned char>(rng());
    return out;
}

// A point `seconds` from now, and whether it has passed.
class Deadline {
public:
    explicit Deadline(double secs)
        : end_(std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(secs))) {}
    bool passed() const { return std::chrono::steady_clock::now() >= end_; }

private:
    std::chrono::steady_clock::time_point end_;
};

// Wall-clock seconds since construction, for the MESSAGEs that say what a test cost.
class Stopwatch {
public:
    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Finishes two queues when the scope is left by an exception. Declared after the host memory an
// operation's asynchronous copies use, it runs before that memory is freed, so a failing check
// never leaves the device writing into freed memory (which would turn a clear report into a
// crash). On the normal path it does nothing: the operations wait for their own work.
class DrainOnThrow {
public:
    DrainOnThrow(dualrt::Queue& a, dualrt::Queue& b)
        : a_(a), b_(b), exceptions_(std::uncaught_exceptions()) {}
    ~DrainOnThrow() {
        if (std::uncaught_exceptions() == exceptions_) return;
        try {
            a_.finish();
            b_.finish();
        } catch (...) {  // the exception being thrown already says what went wrong
        }
    }
    DrainOnThrow(const DrainOnThrow&) = delete;
    DrainOnThrow& operator=(const DrainOnThrow&) = delete;

private:
    dualrt::Queue& a_;
    dualrt::Queue& b_;
    int exceptions_;
};

// Resident set size of this process in bytes (the second field of /proc/self/statm, in pages);
// 0 when /proc cannot be read.
std::size_t rss_bytes();

// busy's result for one element: `iterations` fused multiply-adds, rounded once each, so
// std::fma matches the device bit for bit (kernels/cl/busy.cl).
inline float busy_reference(float v, std::uint32_t iterations) {
    for (std::uint32_t k = 0; k < iterations; ++k) v = std::fma(v, 0.9999f, 0.0001f);
    return v;
}

// group_reverse's result (kernels/cl/group_reverse.cl): each work-group's slice of `group`
// elements reversed; a partial last group reverses only its valid elements.
inline std::vector<float> group_reverse_reference(const std::vector<float>& in, std::size_t group) {
    std::vector<float> out(in.size());
    for (std::size_t start = 0; start < in.size(); start += group) {
        const std::size_t valid = std::min(group, in.size() - start);
        for (std::size_t k = 0; k < valid; ++k) out[start + k] = in[start + valid - 1 - k];
    }
    return out;
}

// "" when got[i] is a correct saxpy of x[i] and a y that held c everywhere, for every i.
inline std::string saxpy_check(const float* got, float a, const std::vector<float>& x, float c) {
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!test::saxpy_element_ok(got[i], a, x[i], c))
            return "element " + std::to_string(i) + " of " + std::to_string(x.size()) + " is " +
                   test::show(got[i]) + ", expected " + test::show(a * x[i] + c);
    return {};
}

inline std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

}  // namespace stress
