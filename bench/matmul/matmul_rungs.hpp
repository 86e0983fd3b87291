// The SGEMM ladder as the host launches it: for each rung of kernels/*/matmul.*, the kernel, its
// work-group shape and the block of C one work-group computes, from which the global range
// follows. The `matmul` benchmark times these; the conformance tests
// (tests/ladders/test_matmul.cpp) check them.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::samples::matmul {

struct Rung {
    int number = 0;          // 1..6, its place in the ladder
    std::string kernel;      // "matmul_vec4"
    std::string title;       // the report's rung column: "6 float4 loads, double-buffered"
    std::size_t local_x = 0, local_y = 0;        // work-group shape (x along the columns of C)
    std::size_t block_cols = 0, block_rows = 0;  // the block of C one work-group computes

    Range local() const { return Range(local_x, local_y); }
    // One work-group per block of an m x n C, the last ones partial.
    Range global(std::size_t m, std::size_t n) const;
};

// The six rungs, in order.
const std::vector<Rung>& rungs();

// Enqueues C = A * B on `queue`: row-major A (m x k), B (k x n) and C (m x n), given as views of
// exactly m*k, k*n and m*n floats. `kernel` is device.kernel(rung.kernel), looked up once by the
// caller (on OpenCL the first lookup builds the program). Throws Errc::invalid_argument when a
// view has the wrong size or a dimension does not fit the kernels' uint.
Event launch(Queue& queue, const Kernel& kernel, const Rung& rung, const Buffer<float>& a,
             const Buffer<float>& b, const Buffer<float>& c, std::size_t m, std::size_t n,
             std::size_t k);

// 2 m n k: the floating-point operations of one product.
double flops(std::size_t m, std::size_t n, std::size_t k);

}  // namespace dualrt::samples::matmul
