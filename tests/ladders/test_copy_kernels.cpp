// The copy kernels of kernels/*/copy.* (the ladders' yardsticks) against the obvious CPU
// reference: fresh random inputs, outputs poisoned with NaN, guard elements past the end that
// must keep the poison, and sizes that leave a partial last work-group or tile.
#include "../support.hpp"
// copy_2d_f32's launch geometry, as the transpose sample launches it.
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

constexpr std::size_t guard = 37;  // elements past the last one a kernel may write
constexpr std::uint32_t max_offset = 32;
constexpr std::uint32_t max_stride = 32;

std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

// Not a multiple of 256 (nor of any power of two), so the last work-group is partial.
std::size_t partial(std::size_t n) { return n % 2 == 0 ? n + 1 : n; }

// Uploads `src` to a new buffer and `dst_size` NaNs to another, runs `launch(queue, src, dst)`,
// and returns what dst holds afterwards.
template <typename Launch>
std::vector<float> run_copy(const std::vector<float>& src, std::size_t dst_size, Launch launch) {
    const auto& device = test::device();
    auto q = device.create_queue();
    auto d_src = device.alloc<float>(src.size());
    auto d_dst = device.alloc<float>(dst_size);
    q.copy(d_src, src);
    q.fill(d_dst, test::poison_float());
    launch(q, d_src, d_dst);
    std::vector<float> out(dst_size, 0.0f);
    q.copy(out, d_dst, dualrt::Sync::blocking);
    return out;
}

}  // namespace

TEST_CASE("copy kernels: copy_f32 copies [0, n) and nothing past it") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    dualrt::Range local;  // default: the library chooses
    SUBCASE("default local range") {}
    SUBCASE("local range 256") { local = dualrt::Range(256); }
    CAPTURE(local.str());
    for (const std::size_t n : {std::size_t{1}, std::size_t{255}, std::size_t{257},
                                partial(rnd.size(1000, 400000))}) {
        CAPTURE(n);
        const auto src = rnd.float_bits(n + guard);
        const auto out = run_copy(src, n + guard, [&](dualrt::Queue& q, auto& s, auto& d) {
            q.launch(test::device().kernel("copy_f32"), n, local, u32(n), s, d);
        });
        std::vector<float> expected(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(n));
        expected.resize(n + guard, test::poison_float());
        CHECK(test::differences(out, expected) == "");
    }
}

TEST_CASE("copy kernels: offset_copy_f32 copies [offset, offset + n) for offsets 0..32") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (std::uint32_t offset = 0; offset <= max_offset; ++offset) {
        const std::size_t n = partial(rnd.size(1, 5000));
        CAPTURE(offset);
        CAPTURE(n);
        // Random data before the offset too: the kernel must neither copy it nor skip a slot.
        const std::size_t size = offset + n + guard;
        const auto src = rnd.float_bits(size);
        const auto out = run_copy(src, size, [&](dualrt::Queue& q, auto& s, auto& d) {
            q.launch(test::device().kernel("offset_copy_f32"), n, dualrt::Range(256), u32(n),
                     offset, s, d);
        });
        std::vector<float> expected(size, test::poison_float());
        for (std::size_t i = offset; i < offset + n; ++i) expected[i] = src[i];
        CHECK(test::differences(out, expected) == "");
    }
}

TEST_CASE("copy kernels: stride_copy_f32 copies every stride-th element for strides 1..32") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (std::uint32_t stride = 1; stride <= max_stride; ++stride) {
        const std::size_t n = partial(rnd.size(1, 3000));
        CAPTURE(stride);
        CAPTURE(n);
        const std::size_t size = n * stride + guard;
        const auto src = rnd.float_bits(size);
        const auto out = run_copy(src, size, [&](dualrt::Queue& q, auto& s, auto& d) {
            q.launch(test::device().kernel("stride_copy_f32"), n, dualrt::Range{}, u32(n), stride,
                     s, d);
        });
        std::vector<float> expected(size, test::poison_float());
        for (std::size_t i = 0; i < n; ++i) expected[i * stride] = src[i * stride];
        CHECK(test::differences(out, expected) == "");
    }
}

TEST_CASE("copy kernels: copy_2d_f32 copies a width x height matrix, partial tiles included") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::vector<Shape> shapes = {{1, 1},    {17, 33}, {33, 17}, {3, 1000},
                                       {1000, 3}, {32, 32}, {64, 96}, {8, 32},
                                       {1029, 517}, {rnd.size(1, 300), rnd.size(1, 300)}};
    for (const auto& shape : shapes) {
        const std::size_t width = shape.cols, height = shape.rows, n = width * height;
        CAPTURE(width);
        CAPTURE(height);
        const auto src = rnd.float_bits(n + guard);
        const auto out = run_copy(src, n + guard, [&](dualrt::Queue& q, auto& s, auto& d) {
            q.launch(test::device().kernel("copy_2d_f32"), transpose::global_range(width, height),
                     transpose::local_range(), u32(width), u32(height), s, d);
        });
        std::vector<float> expected(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(n));
        expected.resize(n + guard, test::poison_float());
        CHECK(test::differences(out, expected) == "");
    }
}
