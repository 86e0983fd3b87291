// Host-side matrices for the transpose ladder: random input, the CPU transpose the rungs are
// checked against, and the comparison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dualrt::samples::transpose {

// A rows x cols row-major matrix.
struct Shape {
    std::size_t rows = 0, cols = 0;
    std::size_t elements() const { return rows * cols; }
    std::string str() const;  // "8192x4096" (rows x cols)
};

// rows * cols floats with random bits in [1, 2) of either sign: every value is normal (nothing a
// flush-to-zero could change) and equal neighbours are rare, so a misplaced element shows.
std::vector<float> random_matrix(const Shape& shape, std::uint64_t seed);

// out[c][r] = in[r][c]: the cols x rows transpose of a rows x cols matrix.
std::vector<float> cpu_transpose(const std::vector<float>& in, const Shape& shape);

// "" when `actual` has the same bits as `expected` everywhere; otherwise how many elements differ
// and where the first is, as (row, column) of the `result` shape.
std::string mismatch(const std::vector<float>& actual, const std::vector<float>& expected,
                     const Shape& result);

}  // namespace dualrt::samples::transpose
