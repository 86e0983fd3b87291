#include "matmul_rungs.hpp"

#include <cstdint>
#include <limits>

namespace dualrt::samples::matmul {
namespace {

// The geometry must match the kernels' compile-time constants (kernels/cu/matmul.cu).
std::vector<Rung> make_rungs() {
    return {
        {1, "matmul_naive", "1 naive", 16, 16, 16, 16},
        {2, "matmul_tile_a", "2 A tile in local memory", 16, 16, 16, 16},
        {3, "matmul_tiled", "3 A and B tiles in local memory", 16, 16, 16, 16},
        {4, "matmul_reg1d", "4 register blocking 1-D (16 per item)", 64, 4, 64, 64},
        {5, "matmul_reg2d", "5 register blocking 2-D (8x8 per item)", 16, 16, 128, 128},
        {6, "matmul_vec4", "6 float4 loads, double-buffered", 16, 16, 128, 128},
    };
}

std::size_t blocks(std::size_t extent, std::size_t block) { return (extent + block - 1) / block; }

[[noreturn]] void refuse(const std::string& detail) {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = "dualrt";
    info.call = "matmul::launch";
    info.detail = detail;
    throw Error(info);
}

}  // namespace

Range Rung::global(std::size_t m, std::size_t n) const {
    return Range(blocks(n, block_cols) * local_x, blocks(m, block_rows) * local_y);
}

const std::vector<Rung>& rungs() {
    static const std::vector<Rung> all = make_rungs();
    return all;
}

Event launch(Queue& queue, const Kernel& kernel, const Rung& rung, const Buffer<float>& a,
             const Buffer<float>& b, const Buffer<float>& c, std::size_t m, std::size_t n,
             std::size_t k) {
    constexpr std::size_t max_dim = std::numeric_limits<std::uint32_t>::max();
    if (m == 0 || n == 0 || k == 0 || m > max_dim || n > max_dim || k > max_dim)
        refuse("m, n and k must be 1 to 2^32-1, not " + std::to_string(m) + ", " +
               std::to_string(n) + ", " + std::to_string(k));
    const auto expect = [](const Buffer<float>& view, std::size_t count, const char* what) {
        if (view.size() != count)
            refuse(std::string(what) + " holds " + std::to_string(view.size()) +
                   " floats, not " + std::to_string(count));
    };
    expect(a, m * k, "A");
    expect(b, k * n, "B");
    expect(c, m * n, "C");
    return queue.launch(kernel, rung.global(m, n), rung.local(), a, b, c,
                        static_cast<std::uint32_t>(m), static_cast<std::uint32_t>(n),
                        static_cast<std::uint32_t>(k));
}

double flops(std::size_t m, std::size_t n, std::size_t k) {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}

}  // namespace dualrt::samples::matmul
