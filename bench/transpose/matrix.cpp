#include "matrix.hpp"
#include "splitmix.hpp"

#include <algorithm>
#include <cstring>

namespace dualrt::samples::transpose {

std::string Shape::str() const { return std::to_string(rows) + "x" + std::to_string(cols); }

namespace {

float from_bits(std::uint32_t bits) {
    // Keep the sign and 23 mantissa bits, set the exponent of [1, 2).
    bits = (bits & 0x807FFFFFu) | 0x3F800000u;
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

}  // namespace

std::vector<float> random_matrix(const Shape& shape, std::uint64_t seed) {
    std::vector<float> out(shape.elements());
    std::uint64_t state = seed;
    for (std::size_t i = 0; i < out.size(); i += 2) {
        const std::uint64_t bits = splitmix64(state);
        out[i] = from_bits(static_cast<std::uint32_t>(bits));
        if (i + 1 < out.size()) out[i + 1] = from_bits(static_cast<std::uint32_t>(bits >> 32));
    }
    return out;
}

std::vector<float> cpu_transpose(const std::vector<float>& in, const Shape& shape) {
    // In blocks, so that both the reads and the writes of a block stay in the cache: a plain
    // double loop over a large matrix misses on every write.
    constexpr std::size_t block = 64;
    std::vector<float> out(in.size());
    for (std::size_t r0 = 0; r0 < shape.rows; r0 += block)
        for (std::size_t c0 = 0; c0 < shape.cols; c0 += block) {
            const std::size_t r_end = std::min(r0 + block, shape.rows);
            const std::size_t c_end = std::min(c0 + block, shape.cols);
            for (std::size_t r = r0; r < r_end; ++r)
                for (std::size_t c = c0; c < c_end; ++c)
                    out[c * shape.rows + r] = in[r * shape.cols + c];
        }
    return out;
}

std::string mismatch(const std::vector<float>& actual, const std::vector<float>& expected,
                     const Shape& result) {
    if (actual.size() != expected.size())
        return std::to_string(actual.size()) + " elements, expected " +
               std::to_string(expected.size());
    std::size_t count = 0, first = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if (std::memcmp(&actual[i], &expected[i], sizeof(float)) == 0) continue;
        if (count++ == 0) first = i;
    }
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(actual.size()) +
           " elements differ, the first at row " + std::to_string(first / result.cols) +
           ", column " + std::to_string(first % result.cols) + ": got " +
           std::to_string(actual[first]) + ", expected " + std::to_string(expected[first]);
}

}  // namespace dualrt::samples::transpose
