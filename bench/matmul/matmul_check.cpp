#include "matmul_check.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>

namespace dualrt::samples::matmul {
namespace {

// The tolerance of a sum of k products whose magnitudes add up to sum_abs: 2 k 2^-24 sum_abs.
double tolerance(std::size_t k, double sum_abs) {
    return static_cast<double>(k) * FLT_EPSILON * sum_abs;
}

std::string show(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

}  // namespace

Checker::Checker(const std::vector<float>& a, const std::vector<float>& b, std::size_t m,
                 std::size_t n, std::size_t k, std::size_t samples, std::uint64_t seed)
    : n_(n), full_(m * n <= max_full_elements && m * n * k <= max_full_work) {
    if (full_) {
        // Row by row in the order i, p, j, so that B is read along its rows.
        std::vector<double> value(n), sum_abs(n);
        points_.reserve(m * n);
        for (std::size_t i = 0; i < m; ++i) {
            std::fill(value.begin(), value.end(), 0.0);
            std::fill(sum_abs.begin(), sum_abs.end(), 0.0);
            for (std::size_t p = 0; p < k; ++p) {
                const double x = a[i * k + p];
                const float* b_row = &b[p * n];
                for (std::size_t j = 0; j < n; ++j) {
                    const double product = x * static_cast<double>(b_row[j]);
                    value[j] += product;
                    sum_abs[j] += std::fabs(product);
                }
            }
            for (std::size_t j = 0; j < n; ++j)
                points_.push_back({i, j, value[j], tolerance(k, sum_abs[j])});
        }
        return;
    }
    std::mt19937_64 engine(seed);
    std::uniform_int_distribution<std::size_t> row(0, m - 1), col(0, n - 1);
    std::vector<std::pair<std::size_t, std::size_t>> where = {
        {0, 0}, {0, n - 1}, {m - 1, 0}, {m - 1, n - 1}};
    for (std::size_t s = 0; s < samples; ++s) where.emplace_back(row(engine), col(engine));
    points_.reserve(where.size());
    for (const auto& [i, j] : where) {
        double value = 0.0, sum_abs = 0.0;
        for (std::size_t p = 0; p < k; ++p) {
            const double product = static_cast<double>(a[i * k + p]) * b[p * n + j];
            value += product;
            sum_abs += std::fabs(product);
        }
        points_.push_back({i, j, value, tolerance(k, sum_abs)});
    }
}

std::string Checker::check(const std::vector<float>& c) const {
    std::size_t wrong = 0;
    std::string report;
    for (const Point& point : points_) {
        const float got = c[point.row * n_ + point.col];
        if (std::fabs(static_cast<double>(got) - point.value) <= point.tolerance) continue;
        if (++wrong <= 3)
            report += " C[" + std::to_string(point.row) + "][" + std::to_string(point.col) +
                      "] = " + show(got) + ", expected " + show(point.value) + ";";
    }
    if (wrong == 0) return {};
    return std::to_string(wrong) + " of " + std::to_string(points_.size()) +
           " checked elements wrong:" + report;
}

std::string Checker::describe() const {
    if (full_) return "all " + std::to_string(points_.size()) + " elements";
    return std::to_string(points_.size()) + " elements (a random sample and the corners)";
}

}  // namespace dualrt::samples::matmul
