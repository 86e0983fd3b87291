// Checking a product C = A * B that came back from a device against the CPU: every element when
// the product is small, otherwise a random sample of elements plus the four corners (where the
// partial tiles end), each against a dot product accumulated in double. An fp32 sum of k
// products is off by at most about k * 2^-24 * sum |a b|, whatever the order of the additions;
// the tolerance is twice that. A full CPU product of 4096^3 would take minutes; 4096 sampled
// elements take a fraction of a second and still catch a wrong tile or a wrong edge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dualrt::samples::matmul {

class Checker {
public:
    // Products of at most this many elements and multiply-adds are checked in full.
    static constexpr std::size_t max_full_elements = std::size_t{1} << 20;
    static constexpr std::size_t max_full_work = std::size_t{1} << 28;

    // a is m x k and b is k x n, row-major. `samples` random elements (from `seed`) are checked
    // when the product is too large to check in full.
    Checker(const std::vector<float>& a, const std::vector<float>& b, std::size_t m,
            std::size_t n, std::size_t k, std::size_t samples, std::uint64_t seed);

    // "" when every checked element of c (m x n, row-major) is within its tolerance (a NaN never
    // is); otherwise how many are not, and the first few.
    std::string check(const std::vector<float>& c) const;
    // What is checked: "all 4096 elements", "4100 elements (random sample and corners)".
    std::string describe() const;

private:
    struct Point {
        std::size_t row = 0, col = 0;
        double value = 0.0, tolerance = 0.0;
    };
    std::size_t n_ = 0;
    bool full_ = false;
    std::vector<Point> points_;
};

}  // namespace dualrt::samples::matmul
