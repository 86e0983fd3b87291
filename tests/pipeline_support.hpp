// What the Pipeline tests share: kernels of their own (loaded at run time into the device under
// test, once per process), whose results the host can reproduce bit for bit, and small helpers.
#pragma once

#include "support.hpp"

#include <map>
#include <string>
#include <vector>

namespace test::pipeline {

// pipeline_test_triad:  c = a + s * b (floats; check with saxpy_element_ok).
// pipeline_test_mix:    y = 2 x + w (float from float and uchar: exact),
//                       z = k * 3 + w (ulong from uint and uchar).
// pipeline_test_window: out[i] = sum of in[j] for j in [g - reach_before, g + reach_after] within
//                       [0, in_count), g = i + halo_before: a window over the chunk's input view,
//                       which at the arrays' ends stops where they stop. Plus extra[g] when
//                       `extra` is given (with_extra != 0): the second input's own element.
inline const dualrt::KernelSource kernels{
    "pipeline_test_kernels",
    R"CL(
__kernel void pipeline_test_triad(uint n, float s, __global const float* a,
                                  __global const float* b, __global float* c) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + s * b[i];
}
__kernel void pipeline_test_mix(uint n, __global const float* x, __global const uint* k,
                                __global const uchar* w, __global float* y, __global ulong* z) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    y[i] = 2.0f * x[i] + (float)w[i];
    z[i] = (ulong)k[i] * 3ul + (ulong)w[i];
}
__kernel void pipeline_test_window(uint n, uint halo_before, uint in_count, uint reach_before,
                                   uint reach_after, __global const uint* in,
                                   __global const uint* extra, uint with_extra,
                                   __global uint* out) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const size_t g = i + halo_before;
    const size_t first = g >= reach_before ? g - reach_before : 0;
    const size_t last = g + reach_after < in_count ? g + reach_after : in_count - 1;
    uint sum = 0;
    for (size_t j = first; j <= last; ++j) sum += in[j];
    out[i] = sum + (with_extra ? extra[g] : 0u);
}
)CL",
    R"CU(
#include "dualrt_kernel.cuh"
extern "C" __global__ void pipeline_test_triad(uint n, float s, const float* a, const float* b,
                                               float* c) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + s * b[i];
}
extern "C" __global__ void pipeline_test_mix(uint n, const float* x, const uint* k,
                                             const uchar* w, float* y, ulong* z) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    y[i] = 2.0f * x[i] + (float)w[i];
    z[i] = (ulong)k[i] * 3ul + (ulong)w[i];
}
extern "C" __global__ void pipeline_test_window(uint n, uint halo_before, uint in_count,
                                                uint reach_before, uint reach_after,
                                                const uint* in, const uint* extra,
                                                uint with_extra, uint* out) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const size_t g = i + halo_before;
    const size_t first = g >= reach_before ? g - reach_before : 0;
    const size_t last = g + reach_after < in_count ? g + reach_after : in_count - 1;
    uint sum = 0;
    for (size_t j = first; j <= last; ++j) sum += in[j];
    out[i] = sum + (with_extra ? extra[g] : 0u);
}
)CU"};

// The device's kernel `name` from `kernels`, loading them on first use (a second load of the
// same source is refused by design, and the cases may run in any order or alone).
inline dualrt::Kernel kernel(const std::string& name) {
    static bool loaded = false;
    if (!loaded) {
        test::device().load_sources(kernels);
        loaded = true;
    }
    return test::device().kernel(name);
}

inline std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

// Random 32-bit values below `limit` (small, so window sums cannot wrap).
inline std::vector<std::uint32_t> random_u32(Random& rnd, std::size_t n,
                                             std::uint32_t limit = 1u << 20) {
    std::vector<std::uint32_t> out(n);
    for (auto& v : out) v = static_cast<std::uint32_t>(rnd.engine() % limit);
    return out;
}

// The window of pipeline_test_window over whole arrays: out[i] = sum of in[j] for j within
// [i - before, i + after] and the array.
inline std::vector<std::uint32_t> window_reference(const std::vector<std::uint32_t>& in,
                                                   std::size_t before, std::size_t after) {
    std::vector<std::uint32_t> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::size_t first = i >= before ? i - before : 0;
        const std::size_t last = std::min(in.size() - 1, i + after);
        std::uint32_t sum = 0;
        for (std::size_t j = first; j <= last; ++j) sum += in[j];
        out[i] = sum;
    }
    return out;
}

// Copies `values` (not empty) into a new pinned buffer of the test device.
template <typename T>
dualrt::HostBuffer<T> pinned_copy(const std::vector<T>& values) {
    auto buffer = test::device().alloc_host<T>(values.size());
    std::copy(values.begin(), values.end(), buffer.begin());
    return buffer;
}

}  // namespace test::pipeline
