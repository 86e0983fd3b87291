// The reduction ladder (kernels/*/reduce.*, run through bench/reduce/reduce_rungs.hpp): every
// rung brings n elements down to one value on the device, for n at and around the work-group
// and pass boundaries, for int32 exactly, for float within the rounding bound of its order, and
// for floats whose sums are exact, exactly. Guard elements follow the input (and precede it in
// the view tests), with values that would show in the sum if a kernel read past its view; the
// result is poisoned before the runs,
// and each rung runs twice on the same buffers, as the sample's timed runs do.
#include "../support.hpp"
#include "reduce_rungs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace {

namespace reduce = dualrt::samples::reduce;

constexpr std::size_t guard = 37;  // guard elements after the input

// Sizes that hit the edges: single elements, not multiples of 4 (rung 6's vectors) or of the
// group size, one more than what one group, one pass, or two passes reduce.
std::vector<std::size_t> edge_sizes() {
    const std::size_t g = reduce::group_size;
    return {1,         2,         3,         4,         5,         7,         63,
            g - 1,     g,         g + 1,     2 * g - 1, 2 * g,     2 * g + 1, 4 * g + 3,
            g * g + 1, 2 * g * 2 * g + 1, g * g * 2 + 5};
}

template <typename T>
T poison();
template <>
float poison<float>() {
    return test::poison_float();
}
template <>
std::int32_t poison<std::int32_t>() {
    return static_cast<std::int32_t>(test::poison_u32);
}

// Large enough that reading one guard element shows in any sum the tests make.
template <typename T>
T guard_value();
template <>
float guard_value<float>() {
    return 1.0e30f;
}
template <>
std::int32_t guard_value<std::int32_t>() {
    return 1 << 24;
}

// The result of `rung` over `data`, placed at element `offset` of a buffer with guard elements
// before it and after it. Offset 0 by default: OpenCL takes views only at aligned offsets.
template <typename T>
T reduce_on_device(const reduce::Rung& rung, const std::vector<T>& data,
                   std::size_t groups_per_unit = reduce::default_groups_per_unit,
                   std::size_t offset = 0) {
    const auto& device = test::device();
    auto q = device.create_queue();
    const std::size_t n = data.size();
    std::vector<T> host(offset + n + guard, guard_value<T>());
    std::copy(data.begin(), data.end(), host.begin() + static_cast<std::ptrdiff_t>(offset));
    auto buffer = device.alloc<T>(host.size());
    q.copy(buffer, host, dualrt::Sync::blocking);

    reduce::RungRunner<T> runner(device, rung, n, groups_per_unit);
    REQUIRE(runner.passes().back().groups == 1);
    q.fill(runner.result(), poison<T>());
    const auto input = buffer.view(offset, n);
    runner.enqueue(q, input);
    runner.enqueue(q, input);
    std::vector<T> out(1, guard_value<T>());
    q.copy(out, runner.result(), dualrt::Sync::blocking);
    return out[0];
}

std::vector<std::int32_t> small_ints(test::Random& rnd, std::size_t n) {
    std::uniform_int_distribution<std::int32_t> dist(-100, 100);
    std::vector<std::int32_t> out(n);
    for (auto& v : out) v = dist(rnd.engine);
    return out;
}

std::int64_t exact_sum(const std::vector<std::int32_t>& data) {
    std::int64_t sum = 0;
    for (auto v : data) sum += v;
    return sum;
}

// Checks `rung` on int32 data of n elements: the sum must be exact.
void check_int_rung(const reduce::Rung& rung, test::Random& rnd, std::size_t n,
                    std::size_t groups_per_unit = reduce::default_groups_per_unit,
                    std::size_t offset = 0) {
    CAPTURE(n);
    const auto data = small_ints(rnd, n);
    const std::int64_t expected = exact_sum(data);
    // |x| <= 100 and n < 2^24: every partial sum fits int32, so no order can overflow.
    REQUIRE(n < (std::size_t{1} << 24));
    const std::int32_t got = reduce_on_device(rung, data, groups_per_unit, offset);
    CHECK(static_cast<std::int64_t>(got) == expected);
}

}  // namespace

TEST_CASE("reduce: the passes of every rung end in one work-group") {
    for (const auto& rung : reduce::rungs()) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000},
                              std::size_t{1} << 20, (std::size_t{1} << 28) + 3}) {
            for (std::uint32_t units : {1u, 2u, 132u}) {
                CAPTURE(rung.title);
                CAPTURE(n);
                CAPTURE(units);
                const auto passes = reduce::plan(rung.number, n, units);
                REQUIRE(!passes.empty());
                CHECK(passes.front().count == n);
                CHECK(passes.back().groups == 1);
                for (std::size_t k = 1; k < passes.size(); ++k)
                    CHECK(passes[k].count == passes[k - 1].groups);
                if (rung.number == 6) {
                    CHECK(passes.size() <= 2);
                    CHECK(passes.front().groups <= units * reduce::default_groups_per_unit);
                }
            }
        }
    }
    CHECK(reduce::kernel_name<float>(reduce::rungs()[0]) == "reduce_f32_1_interleaved_divergent");
    CHECK(reduce::kernel_name<std::int32_t>(reduce::rungs()[5]) == "reduce_i32_6_grid_stride");
}

TEST_CASE("reduce: every rung sums int32 exactly at the group and pass boundaries") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (const auto& rung : reduce::rungs()) {
        CAPTURE(rung.title);
        for (std::size_t n : edge_sizes()) check_int_rung(rung, rnd, n);
        check_int_rung(rung, rnd, rnd.size(1, 5000));
        check_int_rung(rung, rnd, rnd.size(5000, 400000));
    }
}

TEST_CASE("reduce: rung 6 strides many times through the input with few work-groups") {
    // With one work-group per compute unit every work-item loops over many vectors, through both
    // the four-loads loop and the single-load remainder, even on a GPU with many units.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto& rung = reduce::rungs()[5];
    const std::size_t units = std::max<std::size_t>(test::device().info().compute_units, 1);
    for (std::size_t per_item : {1u, 3u, 4u, 5u, 9u, 17u}) {
        const std::size_t n = units * reduce::group_size * 4 * per_item + rnd.size(0, 7);
        check_int_rung(rung, rnd, n, 1);
    }
}

TEST_CASE("reduce: rung 6 on views starting at every element of a 16-byte line") {
    // Its 16-byte loads need 16-byte addresses: a view at element offset 1-3 takes the head and
    // tail elements one by one. CUDA takes any element offset; OpenCL sub-buffers need
    // CL_DEVICE_MEM_BASE_ADDR_ALIGN, so there the library may refuse such a view instead.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto& rung = reduce::rungs()[5];
    for (std::size_t offset = 0; offset < 4; ++offset) {
        CAPTURE(offset);
        for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4},
                              std::size_t{5}, std::size_t{6}, std::size_t{9},
                              rnd.size(10, 100000)}) {
            try {
                check_int_rung(rung, rnd, n, reduce::default_groups_per_unit, offset);
            } catch (const dualrt::Error& e) {
                INFO("message: " << e.what());
                REQUIRE(test::device().backend() == dualrt::Backend::opencl);
                REQUIRE(offset != 0);
                CHECK(e.errc() == dualrt::Errc::invalid_argument);
                MESSAGE("OpenCL refused a view at element offset " << offset << ": "
                                                                   << std::string(e.what()));
                break;
            }
        }
    }
}

TEST_CASE("reduce: every rung sums floats within the rounding bound of its order") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (const auto& rung : reduce::rungs()) {
        CAPTURE(rung.title);
        std::vector<std::size_t> sizes = edge_sizes();
        sizes.push_back(rnd.size(1, 5000));
        sizes.push_back(rnd.size(5000, 400000));
        for (std::size_t n : sizes) {
            CAPTURE(n);
            const auto data = rnd.floats(n);
            double expected = 0.0, sum_abs = 0.0;
            for (float v : data) {
                expected += v;
                sum_abs += std::fabs(v);
            }
            const auto passes = reduce::plan(rung.number, n, test::device().info().compute_units);
            const double tolerance =
                reduce::float_tolerance(reduce::rounding_depth(passes), sum_abs);
            const float got = reduce_on_device(rung, data);
            CAPTURE(expected);
            CAPTURE(tolerance);
            CHECK(std::fabs(static_cast<double>(got) - expected) <= tolerance);
        }
    }
}

TEST_CASE("reduce: every rung sums exactly representable floats exactly") {
    // Multiples of 1/64 of magnitude at most 1, fewer than 2^18 of them: every partial sum, in any
    // order, is a multiple of 2^-6 below 2^18, which a float holds exactly. So the result must be
    // the exact sum: a dropped or doubled element cannot hide in rounding.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (const auto& rung : reduce::rungs()) {
        CAPTURE(rung.title);
        for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{255},
                              std::size_t{513}, std::size_t{66001}, rnd.size(1, 250000)}) {
            CAPTURE(n);
            std::uniform_int_distribution<int> dist(-64, 64);
            std::vector<float> data(n);
            double expected = 0.0;
            for (auto& v : data) {
                v = static_cast<float>(dist(rnd.engine)) / 64.0f;
                expected += v;
            }
            CHECK(static_cast<double>(reduce_on_device(rung, data)) == expected);
        }
    }
}

TEST_CASE("reduce: a size past the kernels' 32-bit count is refused") {
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "32 bits",
                       (void)reduce::RungRunner<float>(test::device(), reduce::rungs()[0],
                                                       std::size_t{1} << 32));
}
