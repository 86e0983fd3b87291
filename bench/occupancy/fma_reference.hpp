// The host side of the fma_chain kernel (kernels/cl/fma_chain.cl): the same four chains in float
// with std::fma, its flop count, and the comparison its results pass. Header-only, so that the
// conformance tests (tests/ladders/test_occupancy.cpp) check the kernel against exactly what the
// benchmark checks it against.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace dualrt::samples::occupancy {

// Four chains, one FMA (two flops) each per iteration.
inline constexpr double fma_chain_flops_per_iteration = 8.0;

// fma_chain's result for one input. std::fma rounds once, as OpenCL's fma() and CUDA's fmaf()
// do, and the sum adds in the kernel's order, so the device's result is this one.
inline float fma_chain_reference(float x, std::uint32_t iterations) {
    float a = x, b = x, c = x, d = x;
    for (std::uint32_t k = 0; k < iterations; ++k) {
        a = std::fma(a, 0.9999f, 0.01f);
        b = std::fma(b, 0.9998f, 0.01f);
        c = std::fma(c, 0.9997f, 0.01f);
        d = std::fma(d, 0.9996f, 0.01f);
    }
    return (a + b) + (c + d);
}

// Whether a device's result passes: within a relative 1e-5 (some 80 ulp) of the reference.
// Both round the same operations the same way, so they should agree to the bit; the margin
// keeps the check about what the kernel computes (the right element, every chain, every
// iteration: one more or less moves the result by 1e-4 of it or more) rather than about the
// last bit of some compiler's rounding. A NaN (the poison where nothing was written) never
// passes.
inline bool fma_chain_close(float got, float expected) {
    return std::fabs(got - expected) <= 1e-5f * std::fabs(expected);
}

}  // namespace dualrt::samples::occupancy
