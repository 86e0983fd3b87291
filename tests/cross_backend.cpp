// Every built-in kernel (kernels/cl, twins in kernels/cu) on every device of every backend, on
// the same fresh random inputs: each result must match the CPU reference and the first device's
// result. Global sizes leave a partial last work-group (bounds checks), local sizes are explicit
// or left to the library, and output buffers carry guard elements past n that must stay as they
// were.
#include "cross_backend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace {

constexpr std::size_t guard = 37;  // elements past n in every output buffer
using Buffer = dualrt::Buffer<float>;

std::string local_name(const dualrt::Range& local) {
    return local.dims() ? local.str() : std::string("auto");
}

template <typename T>
std::vector<T> with_guard(std::vector<T> data, T guard_value) {
    data.resize(data.size() + guard, guard_value);
    return data;
}

// Uploads `initial` (guards included) to a new buffer, runs `launch` on it, and returns the
// buffer's contents, read into a NaN-poisoned vector so that a short read shows.
template <typename Launch>
std::vector<float> run_in_place(const dualrt::Device& device, const std::vector<float>& initial,
                                Launch launch) {
    auto q = device.create_queue();
    auto buffer = device.alloc<float>(initial.size());
    q.copy(buffer, initial, dualrt::Sync::blocking);
    launch(q, buffer);
    std::vector<float> out(initial.size(), test::poison_float());
    q.copy(out, buffer, dualrt::Sync::blocking);
    return out;
}

// index_2d / index_3d into a poisoned buffer: element i must hold i, the guards the poison.
template <typename... Extents>
void check_index_kernel(const char* kernel, const dualrt::Range& global,
                        const dualrt::Range& local, Extents... extents) {
    const std::size_t n = global.total();
    std::vector<std::uint32_t> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = cross::u32(i);
    cross::check_on_every_device<std::uint32_t>(
        std::string(kernel) + " " + global.str() + " local " + local_name(local),
        with_guard(expected, test::poison_u32), {}, [&](const dualrt::Device& device) {
            auto q = device.create_queue();
            auto buffer = device.alloc<std::uint32_t>(n + guard);
            q.fill(buffer, test::poison_u32);
            q.launch(device.kernel(kernel), global, local, buffer, extents...);
            std::vector<std::uint32_t> out(n + guard, ~test::poison_u32);
            q.copy(out, buffer, dualrt::Sync::blocking);
            return out;
        });
}

// The largest 1-D work-group every device takes (group_reverse must use the same one on all).
std::size_t common_group_limit() {
    std::size_t limit = std::numeric_limits<std::size_t>::max();
    for (const auto& target : cross::targets()) {
        const auto& info = target.device.info();
        limit = std::min({limit, info.max_work_group_size, info.max_work_item_sizes[0]});
    }
    return limit;
}

}  // namespace

TEST_CASE("cross-backend: fill") {
    auto rnd = cross::random();
    INFO("seed " << rnd.seed);
    dualrt::Range local;
    SUBCASE("local auto") {}
    SUBCASE("local 100") { local = dualrt::Range(100); }
    const std::size_t n = cross::partial_groups(rnd.size(1000, 300000), 100);
    const float value = rnd.uniform(-100.0f, 100.0f);
    CAPTURE(value);
    // The NaN poison stays in the guards: fill writes nothing past n.
    const auto expected = with_guard(std::vector<float>(n, value), test::poison_float());
    cross::check_on_every_device<float>(
        "fill n=" + std::to_string(n) + " local " + local_name(local),
        expected, {}, [&](const dualrt::Device& device) {
            auto q = device.create_queue();
            auto buffer = device.alloc<float>(n + guard);
            q.fill(buffer, test::poison_float());
            q.launch(device.kernel("fill"), n, local, buffer, value, cross::u32(n));
            std::vector<float> out(n + guard, 0.0f);
            q.copy(out, buffer, dualrt::Sync::blocking);
            return out;
        });
}

TEST_CASE("cross-backend: saxpy") {
    auto rnd = cross::random();
    INFO("seed " << rnd.seed);
    dualrt::Range local;
    SUBCASE("local auto") {}
    SUBCASE("local 100") { local = dualrt::Range(100); }
    const std::size_t n = cross::partial_groups(rnd.size(100000, 1000000), 100);
    const float a = rnd.uniform(0.5f, 2.0f) * (rnd.size(0, 1) ? 1.0f : -1.0f);  // never 0
    CAPTURE(a);
    const auto x = rnd.floats(n);
    const auto y = rnd.floats(n);
    const float x_guard = 1.0f, y_guard = 3.0f;  // finite: a stray write past n changes y's guard

    // A device compiler may contract a * x + y into one fma (OpenCL and nvcc both may), so either
    // rounding is right. The reference is the unfused one: the product in double is exact, and
    // rounding it to float first keeps the host compiler from contracting. The tolerance of each
    // element is the distance to the fused result: 0 where both roundings agree.
    std::vector<float> expected(n), tolerance(n + guard, 0.0f);
    for (std::size_t i = 0; i < n; ++i) {
        const auto product = static_cast<float>(static_cast<double>(a) * x[i]);
        expected[i] = product + y[i];
        tolerance[i] = std::fabs(std::fma(a, x[i], y[i]) - expected[i]);
    }
    const auto initial_x = with_guard(x, x_guard), initial_y = with_guard(y, y_guard);
    cross::check_on_every_device<float>(
        "saxpy n=" + std::to_string(n) + " local " + local_name(local),
        with_guard(expected, y_guard), tolerance, [&](const dualrt::Device& device) {
            auto q = device.create_queue();
            auto dx = device.alloc<float>(n + guard);
            auto dy = device.alloc<float>(n + guard);
            q.copy(dx, initial_x, dualrt::Sync::blocking);
            q.copy(dy, initial_y, dualrt::Sync::blocking);
            q.launch(device.kernel("saxpy"), n, local, cross::u32(n), a, dx, dy);
            std::vector<float> out(n + guard, test::poison_float());
            q.copy(out, dy, dualrt::Sync::blocking);
            return out;
        });
}

TEST_CASE("cross-backend: busy") {
    auto rnd = cross::random();
    INFO("seed " << rnd.seed);
    dualrt::Range local;
    SUBCASE("local auto") {}
    SUBCASE("local 96") { local = dualrt::Range(96); }
    const std::size_t n = cross::partial_groups(rnd.size(10000, 20000), 96);
    const auto iterations = cross::u32(rnd.size(50, 200));
    CAPTURE(iterations);
    const auto data = rnd.floats(n, 0.0f, 1.0f);
    // fma rounds once on every device and in std::fma: the results match bit for bit.
    auto expected = data;
    for (auto& v : expected)
        for (std::uint32_t k = 0; k < iterations; ++k) v = std::fma(v, 0.9999f, 0.0001f);
    const float guard_value = 0.5f;  // finite: busy would change it (a NaN would stay NaN)
    cross::check_on_every_device<float>(
        "busy n=" + std::to_string(n) + " local " + local_name(local),
        with_guard(expected, guard_value), {}, [&](const dualrt::Device& device) {
            return run_in_place(device, with_guard(data, guard_value),
                                [&](dualrt::Queue& q, Buffer& buffer) {
                                    q.launch(device.kernel("busy"), n, local, buffer,
                                             cross::u32(n), iterations);
                                });
        });
}

TEST_CASE("cross-backend: index_2d") {
    auto rnd = cross::random();
    INFO("seed " << rnd.seed);
    // Odd extents: never a multiple of 16x8 or of the library's power-of-two choice.
    const std::size_t width = cross::partial_groups(rnd.size(17, 300));
    const std::size_t height = cross::partial_groups(rnd.size(9, 100));
    dualrt::Range local;
    SUBCASE("local auto") {}
    SUBCASE("local 16x8") { local = dualrt::Range(16, 8); }
    check_index_kernel("index_2d", dualrt::Range(width, height), local, cross::u32(width),
                       cross::u32(height));
}

TEST_CASE("cross-backend: index_3d") {
    auto rnd = cross::random();
    INFO("seed " << rnd.seed);
    const std::size_t width = cross::partial_groups(rnd.size(5, 40));
    const std::size_t height = cross::partial_groups(rnd.size(5, 30));
    const std::size_t depth = cross::partial_groups(rnd.size(5, 20));
    dualrt::Range local;
    SUBCASE("local auto") {}
    SUBCASE("local 4x4x4") { local = dualrt::Range(4, 4, 4); }
    check_index_kernel("index_3d", dualrt::Range(width, height, depth), local, cross::u32(width),
                       cross::u32(height), cross::u32(depth));
}

// Explicit work-groups only: the result depends on the group size by definition, and the local
// memory argument must be sized for it, so the library cannot be left to choose.
TEST_CASE("cross-backend: group_reverse") {
    auto rnd = cross::random();
    INFO("seed " << rnd.seed);
    std::size_t group = 64;
    SUBCASE("group of 64") {}
    SUBCASE("group of 256 or the smallest device limit") { group = 256; }
    SUBCASE("group of 1") { group = 1; }
    group = std::min(group, common_group_limit());
    // A partial last group, unless the group is a single work-item.
    const std::size_t n = group * rnd.size(1, 500) + (group > 1 ? rnd.size(1, group - 1) : 0);
    const auto data = rnd.floats(n);
    auto expected = data;
    for (std::size_t start = 0; start < n; start += group) {
        const auto first = expected.begin() + static_cast<std::ptrdiff_t>(start);
        std::reverse(first, first + static_cast<std::ptrdiff_t>(std::min(group, n - start)));
    }
    const float guard_value = 2.0f;  // outside data's range, so a swap with it shows
    cross::check_on_every_device<float>(
        "group_reverse n=" + std::to_string(n) + " local " + std::to_string(group),
        with_guard(expected, guard_value), {}, [&](const dualrt::Device& device) {
            return run_in_place(device, with_guard(data, guard_value),
                                [&](dualrt::Queue& q, Buffer& buffer) {
                                    q.launch(device.kernel("group_reverse"), n, group, buffer,
                                             dualrt::local_bytes(group * sizeof(float)),
                                             cross::u32(n));
                                });
        });
}
