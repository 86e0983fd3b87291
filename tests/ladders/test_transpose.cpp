// The transpose ladder's kernels (kernels/*/transpose.*) against the CPU transpose: fresh random
// matrices, square and rectangular, with sizes that leave partial tiles in either dimension, the
// output poisoned with NaN and followed by guard elements that must keep the poison.
#include "../support.hpp"
// The rungs and their launch geometry, as the sample runs them.
#include "../../bench/transpose/rungs.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace {

namespace transpose = dualrt::samples::transpose;

// A rows x cols row-major matrix: width == cols, height == rows.
struct Shape {
    std::size_t rows, cols;
};

constexpr std::size_t guard = 37;  // elements past the end of the output

// out[c][r] = in[r][c] for a rows x cols row-major `in`.
std::vector<float> cpu_transpose(const std::vector<float>& in, std::size_t rows,
                                 std::size_t cols) {
    std::vector<float> out(rows * cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
    return out;
}

// Runs `kernel` on `in` (rows x cols) into a poisoned output with guard elements; returns the
// output, guards included.
std::vector<float> device_transpose(const std::string& kernel, const std::vector<float>& in,
                                    std::size_t rows, std::size_t cols) {
    const auto& device = test::device();
    auto q = device.create_queue();
    auto d_in = device.alloc<float>(in.size());
    auto d_out = device.alloc<float>(in.size() + guard);
    q.copy(d_in, in);
    q.fill(d_out, test::poison_float());
    const std::size_t width = cols, height = rows;
    q.launch(device.kernel(kernel), transpose::global_range(width, height),
             transpose::local_range(), static_cast<std::uint32_t>(width),
             static_cast<std::uint32_t>(height), d_in, d_out);
    std::vector<float> out(in.size() + guard, 0.0f);
    q.copy(out, d_out, dualrt::Sync::blocking);
    return out;
}

}  // namespace

TEST_CASE("transpose: every rung matches the CPU transpose, partial tiles included") {
    const std::size_t group = transpose::tile * transpose::tile_rows;
    for (const auto& rung : transpose::rungs) {
        const std::size_t limit = test::device().kernel(rung.kernel).occupancy(1).max_group_size;
        if (limit < group) {
            MESSAGE("skipped: " << rung.kernel << " takes work-groups of " << group
                                << " work-items, above this device's limit of " << limit);
            return;
        }
    }
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::vector<Shape> shapes = {{1, 1},     {1, 33},   {33, 1},  {33, 17},
                                       {17, 33},   {1000, 3}, {3, 1000}, {32, 32},
                                       {64, 96},   {96, 64},  {517, 1029},
                                       {rnd.size(1, 300), rnd.size(1, 300)}};
    for (const auto& shape : shapes) {
        CAPTURE(shape.rows);
        CAPTURE(shape.cols);
        const auto in = rnd.float_bits(shape.rows * shape.cols);
        auto expected = cpu_transpose(in, shape.rows, shape.cols);
        expected.resize(expected.size() + guard, test::poison_float());
        for (const auto& rung : transpose::rungs) {
            if (!rung.transposes) continue;  // the copy: test_copy_kernels.cpp
            const std::string kernel = rung.kernel;
            CAPTURE(kernel);
            CHECK(test::differences(device_transpose(kernel, in, shape.rows, shape.cols),
                                    expected) == "");
        }
    }
}
