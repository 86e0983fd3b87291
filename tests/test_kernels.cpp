// The built-in kernels compute what their CPU references compute, over global ranges that are not
// multiples of the work-group size (so bounds checks matter), with explicit and default local
// ranges. Every output buffer has guard elements past n that must stay untouched.
#include "support.hpp"

#include <algorithm>
#include <cmath>

namespace {

constexpr std::size_t guard = 37;  // elements past n in every output buffer

template <typename T>
std::vector<T> with_guard(std::vector<T> data, T poison) {
    data.resize(data.size() + guard, poison);
    return data;
}

std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

// Runs index_2d / index_3d over `global` into a poisoned buffer with guard elements, and returns
// the differences from "element i holds i, guards untouched" ("" when there are none).
template <typename... Extents>
std::string index_kernel_output(const char* kernel, const dualrt::Range& global,
                                const dualrt::Range& local, Extents... extents) {
    const std::size_t n = global.total();
    auto q = test::device().create_queue();
    auto buffer = test::device().alloc<std::uint32_t>(n + guard);
    q.fill(buffer, test::poison_u32);
    q.launch(test::device().kernel(kernel), global, local, buffer, extents...);
    std::vector<std::uint32_t> out(n + guard, 0);
    q.copy(out, buffer, dualrt::Sync::blocking);
    std::vector<std::uint32_t> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = u32(i);
    return test::differences(out, with_guard(expected, test::poison_u32));
}

}  // namespace

TEST_CASE("kernels: saxpy y = a*x + y") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = 1000003;
    const float a = rnd.uniform(0.5f, 2.0f) * (rnd.size(0, 1) ? 1.0f : -1.0f);  // never 0
    CAPTURE(a);
    const auto x = rnd.floats(n);
    const auto y = rnd.floats(n);
    // Finite guards (a NaN would absorb a stray write): a write past n changes y's guard.
    const float x_guard = 1.0f, y_guard = 3.0f;
    auto q = test::device().create_queue();
    auto dx = test::device().alloc<float>(n + guard);
    auto dy = test::device().alloc<float>(n + guard);
    q.copy(dx, with_guard(x, x_guard), dualrt::Sync::blocking);
    q.copy(dy, with_guard(y, y_guard), dualrt::Sync::blocking);

    dualrt::Range local;  // default: the library chooses
    SUBCASE("default local range") {}
    SUBCASE("local range 100") { local = dualrt::Range(100); }
    CAPTURE(local.str());
    auto done = q.launch(test::device().kernel("saxpy"), n, local, u32(n), a, dx, dy);
    REQUIRE(done.valid());
    std::vector<float> out(n + guard, test::poison_float());
    q.copy(out, dy).wait();

    const std::vector<float> result(out.begin(), out.begin() + n);
    CHECK(test::saxpy_differences(result, a, x, y) == "");
    const std::vector<float> tail(out.begin() + n, out.end());
    CHECK(test::differences(tail, std::vector<float>(guard, y_guard)) == "");
}

TEST_CASE("kernels: fill writes value to [0, n) and nothing past it") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1, 300000);
    const float value = rnd.uniform(-100.0f, 100.0f);
    CAPTURE(n);
    auto q = test::device().create_queue();
    auto out_buffer = test::device().alloc<float>(n + guard);
    q.fill(out_buffer, test::poison_float());
    q.launch(test::device().kernel("fill"), n, dualrt::Range{}, out_buffer, value, u32(n));
    std::vector<float> out(n + guard, 0.0f);
    q.copy(out, out_buffer, dualrt::Sync::blocking);
    CHECK(test::differences(out, with_guard(std::vector<float>(n, value), test::poison_float())) ==
          "");
}

TEST_CASE("kernels: busy runs `iterations` fused multiply-adds per element") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(10000, 20000);
    const std::uint32_t iterations = static_cast<std::uint32_t>(rnd.size(50, 200));
    CAPTURE(n);
    CAPTURE(iterations);
    const auto data = rnd.floats(n, 0.0f, 1.0f);
    auto expected = data;
    for (auto& v : expected)
        for (std::uint32_t k = 0; k < iterations; ++k) v = std::fma(v, 0.9999f, 0.0001f);

    auto q = test::device().create_queue();
    auto buffer = test::device().alloc<float>(n + guard);
    const float guard_value = 0.5f;  // finite: busy would change it (a NaN would stay NaN)
    q.copy(buffer, with_guard(data, guard_value), dualrt::Sync::blocking);
    q.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n), iterations);
    std::vector<float> out(n + guard, test::poison_float());
    q.copy(out, buffer, dualrt::Sync::blocking);
    // fma rounds once on both sides, so the device matches the host bit for bit.
    CHECK(test::differences(out, with_guard(expected, guard_value)) == "");
}

TEST_CASE("kernels: index_2d covers a width x height range exactly once") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    std::size_t width = rnd.size(17, 300), height = rnd.size(9, 100);
    if (width % 16 == 0) ++width;
    if (height % 8 == 0) ++height;
    CAPTURE(width);
    CAPTURE(height);
    dualrt::Range local;
    SUBCASE("default local range") {}
    SUBCASE("local range 16x8") { local = dualrt::Range(16, 8); }
    CAPTURE(local.str());

    CHECK(index_kernel_output("index_2d", dualrt::Range(width, height), local, u32(width),
                              u32(height)) == "");
}

TEST_CASE("kernels: many work-groups in dimension 0; CUDA refuses more than 65535 in dimension 1") {
    const std::size_t many = 70001;  // work-groups of one work-item: more than gridDim.y allows
    CHECK(index_kernel_output("index_2d", dualrt::Range(many, 1), dualrt::Range(1, 1), u32(many),
                              u32(1)) == "");
    auto q = test::device().create_queue();
    auto buffer = test::device().alloc<std::uint32_t>(many);
    const auto tall = [&] {
        q.launch(test::device().kernel("index_2d"), dualrt::Range(1, many), dualrt::Range(1, 1),
                 buffer, u32(1), u32(many));
        q.finish();
    };
    if (test::device().backend() == dualrt::Backend::cuda) {
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "65535", tall());
        // The refusal happens before the launch: the queue still works.
        CHECK(index_kernel_output("index_2d", dualrt::Range(16, 16), dualrt::Range{}, u32(16),
                                  u32(16)) == "");
    } else {
        const std::string backend = dualrt::to_string(test::device().backend());
        MESSAGE("the grid limit is CUDA's; on " << backend << " the tall range is not checked");
    }
}

TEST_CASE("kernels: index_3d covers a width x height x depth range exactly once") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    std::size_t width = rnd.size(5, 40), height = rnd.size(5, 30), depth = rnd.size(5, 20);
    if (width % 4 == 0) ++width;
    if (height % 4 == 0) ++height;
    if (depth % 4 == 0) ++depth;
    CAPTURE(width);
    CAPTURE(height);
    CAPTURE(depth);
    dualrt::Range local;
    SUBCASE("default local range") {}
    SUBCASE("local range 4x4x4") { local = dualrt::Range(4, 4, 4); }
    CAPTURE(local.str());

    CHECK(index_kernel_output("index_3d", dualrt::Range(width, height, depth), local, u32(width),
                              u32(height), u32(depth)) == "");
}

TEST_CASE("kernels: group_reverse reverses each work-group's slice through local memory") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto& info = test::device().info();
    const std::size_t limit = std::min(info.max_work_group_size, info.max_work_item_sizes[0]);
    std::size_t group = 64;
    SUBCASE("group of 64") {}
    SUBCASE("group of 256 or the device limit") { group = std::min<std::size_t>(256, limit); }
    SUBCASE("group of 1") { group = 1; }
    group = std::min(group, limit);
    // A partial last group (n % group != 0) unless the group is a single work-item.
    const std::size_t n = group * rnd.size(1, 500) + (group > 1 ? rnd.size(1, group - 1) : 0);
    CAPTURE(group);
    CAPTURE(n);

    const auto data = rnd.floats(n);
    auto expected = data;
    for (std::size_t start = 0; start < n; start += group) {
        const auto first = expected.begin() + static_cast<std::ptrdiff_t>(start);
        std::reverse(first, first + static_cast<std::ptrdiff_t>(std::min(group, n - start)));
    }
    auto q = test::device().create_queue();
    auto buffer = test::device().alloc<float>(n + guard);
    const float guard_value = 2.0f;  // outside data's range, so a swap with it shows
    q.copy(buffer, with_guard(data, guard_value), dualrt::Sync::blocking);
    q.launch(test::device().kernel("group_reverse"), n, group, buffer,
             dualrt::local_bytes(group * sizeof(float)), u32(n));
    std::vector<float> out(n + guard, test::poison_float());
    q.copy(out, buffer, dualrt::Sync::blocking);
    CHECK(test::differences(out, with_guard(expected, guard_value)) == "");
}

TEST_CASE("kernels: a buffer dropped while a kernel writes it is not reused under the kernel") {
    // The last handle to `busy_buffer` goes while `busy` still runs on it. Were its memory
    // handed out again at once, the allocations that follow could land on it and the kernel's
    // writes would corrupt them. Each fresh buffer is filled behind the kernel on the same queue
    // and checked after it; a second queue fills one more at once, racing with the kernel.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = std::size_t{1} << 20;
    auto q = test::device().create_queue();
    auto other = test::device().create_queue();
    {
        auto busy_buffer = test::device().alloc<float>(n);
        q.fill(busy_buffer, 1.0f);
        // Long enough on a GPU to outlast the allocations below; short on a CPU device.
        const bool gpu = test::device().info().type == dualrt::DeviceType::gpu;
        q.launch(test::device().kernel("busy"), n, dualrt::Range{}, busy_buffer, u32(n),
                 u32(gpu ? 20000 : 100));
    }
    const float value = rnd.uniform(2.0f, 3.0f);
    std::vector<dualrt::Buffer<float>> fresh;
    for (int i = 0; i < 4; ++i) {
        fresh.push_back(test::device().alloc<float>(n));
        q.fill(fresh.back(), value);
    }
    auto raced = test::device().alloc<float>(n);
    other.fill(raced, value);
    q.finish();
    other.finish();
    const std::vector<float> expected(n, value);
    for (auto& buffer : fresh) {
        std::vector<float> out(n, test::poison_float());
        q.copy(out, buffer, dualrt::Sync::blocking);
        CHECK(test::differences(out, expected) == "");
    }
    std::vector<float> out(n, test::poison_float());
    q.copy(out, raced, dualrt::Sync::blocking);
    CHECK(test::differences(out, expected) == "");
}
