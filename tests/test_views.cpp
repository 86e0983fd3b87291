// Sub-buffer views: copies and kernels through buffer.view(offset, count) touch exactly that
// range, and views of views add their offsets.
#include "support.hpp"

#include <algorithm>

namespace {

// Element i of a buffer that the test never writes.
float guard_value(std::size_t i) { return -static_cast<float>(i) - 0.5f; }

std::vector<float> guards(std::size_t n) {
    std::vector<float> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = guard_value(i);
    return out;
}

void put(std::vector<float>& into, std::size_t at, const std::vector<float>& part) {
    std::copy(part.begin(), part.end(), into.begin() + static_cast<std::ptrdiff_t>(at));
}

}  // namespace

TEST_CASE("views: accessors report the range within the allocation") {
    auto buffer = test::device().alloc<float>(1000);
    auto view = buffer.view(13, 477);
    CHECK(view.size() == 477);
    CHECK(view.bytes() == 477 * sizeof(float));
    CHECK(view.offset_bytes() == 13 * sizeof(float));
    CHECK(view.allocation_bytes() == 1000 * sizeof(float));
    CHECK(view.native_handle() == buffer.native_handle());  // shares the allocation
    auto inner = view.view(7, 31);
    CHECK(inner.offset_bytes() == 20 * sizeof(float));
    CHECK(inner.size() == 31);
    CHECK(buffer.view(1000, 0).size() == 0);  // the empty view at the end is in range
}

TEST_CASE("views: host copies into and out of a view at an odd offset") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    const std::size_t n = rnd.size(100, 20000);
    const std::size_t offset = rnd.size(0, n / 2) | 1;
    const std::size_t count = rnd.size(1, n - offset);
    CAPTURE(n);
    CAPTURE(offset);
    CAPTURE(count);
    auto buffer = test::device().alloc<float>(n);
    const auto part = rnd.float_bits(count);

    SUBCASE("into a view leaves the rest untouched") {
        q.copy(buffer, guards(n), dualrt::Sync::blocking);
        q.copy(buffer.view(offset, count), part);
        std::vector<float> out(n, test::poison_float());
        q.copy(out, buffer, dualrt::Sync::blocking);
        auto expected = guards(n);
        put(expected, offset, part);
        CHECK(test::differences(out, expected) == "");
    }
    SUBCASE("out of a view reads exactly that range") {
        auto whole = guards(n);
        put(whole, offset, part);
        q.copy(buffer, whole);
        std::vector<float> out(count, test::poison_float());
        q.copy(out.data(), count, buffer.view(offset, count), dualrt::Sync::blocking);
        CHECK(test::differences(out, part) == "");
    }
    SUBCASE("view of a view, pinned memory, device -> device between views") {
        const std::size_t inner = rnd.size(0, count - 1);
        const std::size_t inner_count = rnd.size(1, count - inner);
        CAPTURE(inner);
        CAPTURE(inner_count);
        auto pinned = test::device().alloc_host<float>(inner_count);
        std::copy(part.begin(), part.begin() + static_cast<std::ptrdiff_t>(inner_count),
                  pinned.begin());
        q.copy(buffer, guards(n), dualrt::Sync::blocking);
        q.copy(buffer.view(offset, count).view(inner, inner_count), pinned);

        // Copy the same range into a second buffer at another odd offset, through views.
        auto other = test::device().alloc<float>(inner_count + 10);
        q.copy(other, guards(inner_count + 10), dualrt::Sync::blocking);
        q.copy(other.view(3, inner_count), buffer.view(offset + inner, inner_count));

        std::vector<float> out(n, test::poison_float());
        std::vector<float> other_out(inner_count + 10, test::poison_float());
        q.copy(out, buffer);
        q.copy(other_out, other, dualrt::Sync::blocking);
        const std::vector<float> written(part.begin(),
                                         part.begin() + static_cast<std::ptrdiff_t>(inner_count));
        auto expected = guards(n);
        put(expected, offset + inner, written);
        CHECK(test::differences(out, expected) == "");
        auto other_expected = guards(inner_count + 10);
        put(other_expected, 3, written);
        CHECK(test::differences(other_out, other_expected) == "");
    }
}

TEST_CASE("views: a kernel on views at a 4096-byte offset writes only inside them") {
    // 1024 floats = 4096 bytes: a multiple of every OpenCL sub-buffer alignment we know.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    const std::size_t offset = 1024, count = rnd.size(1000, 5000), n = offset + count + 100;
    CAPTURE(count);
    const float a = rnd.uniform(-2.0f, 2.0f);
    const auto x = rnd.floats(count);
    const auto y = rnd.floats(count);
    auto dx = test::device().alloc<float>(n);
    auto dy = test::device().alloc<float>(n);
    q.copy(dx, guards(n), dualrt::Sync::blocking);
    q.copy(dy, guards(n), dualrt::Sync::blocking);
    q.copy(dx.view(offset, count), x);
    q.copy(dy.view(offset, count), y);
    q.launch(test::device().kernel("saxpy"), count, dualrt::Range{},
             static_cast<std::uint32_t>(count), a, dx.view(offset, count), dy.view(offset, count));
    std::vector<float> out(n, test::poison_float());
    q.copy(out, dy, dualrt::Sync::blocking);

    const std::vector<float> inside(out.begin() + offset, out.begin() + offset + count);
    CHECK(test::saxpy_differences(inside, a, x, y) == "");
    auto outside = out;
    put(outside, offset, std::vector<float>(count, 0.0f));
    auto expected = guards(n);
    put(expected, offset, std::vector<float>(count, 0.0f));
    CHECK(test::differences(outside, expected) == "");
}

TEST_CASE("views: a kernel on a view at a 4-byte offset works or is refused cleanly") {
    // CUDA takes any element-aligned pointer. OpenCL sub-buffers need
    // CL_DEVICE_MEM_BASE_ADDR_ALIGN, so there the library may refuse with invalid_argument
    // instead; never a wrong result, never another error.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    const std::size_t count = rnd.size(100, 1000), n = count + 1;
    const float value = rnd.uniform(-10.0f, 10.0f);
    auto buffer = test::device().alloc<float>(n);
    q.copy(buffer, guards(n), dualrt::Sync::blocking);
    bool refused = false;
    try {
        q.launch(test::device().kernel("fill"), count, dualrt::Range{}, buffer.view(1, count),
                 value, static_cast<std::uint32_t>(count));
    } catch (const dualrt::Error& e) {
        INFO("message: " << e.what());
        CHECK(test::device().backend() == dualrt::Backend::opencl);
        CHECK(e.errc() == dualrt::Errc::invalid_argument);
        refused = true;
    }
    std::vector<float> out(n, test::poison_float());
    q.copy(out, buffer, dualrt::Sync::blocking);
    auto expected = guards(n);
    if (!refused) std::fill(expected.begin() + 1, expected.end(), value);
    CAPTURE(refused);
    CHECK(test::differences(out, expected) == "");
}

TEST_CASE("views: 1100 distinct views as kernel arguments, each launch writing its own") {
    // OpenCL makes a sub-buffer for each view argument of each launch and releases it as soon as
    // the launch is enqueued; every launch must still write its own view, all of them queued
    // before any is waited for. 1100 views of 1024 floats apart (4096 bytes, a multiple of every
    // sub-buffer alignment we know), each one element longer than the last.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    constexpr std::size_t views = 1100, stride = 1024;
    auto q = test::device().create_queue();
    auto buffer = test::device().alloc<float>(views * stride);
    q.fill(buffer, 0.0f);
    const auto fill = test::device().kernel("fill");
    const float base = rnd.uniform(1.0f, 2.0f);
    for (std::size_t v = 0; v < views; ++v) {
        const std::size_t count = 1 + v % (stride - 1);
        q.launch(fill, count, dualrt::Range{}, buffer.view(v * stride, count),
                 base + static_cast<float>(v), static_cast<std::uint32_t>(count));
    }
    std::vector<float> out(views * stride, test::poison_float());
    q.copy(out, buffer, dualrt::Sync::blocking);
    std::vector<float> expected(views * stride, 0.0f);
    for (std::size_t v = 0; v < views; ++v)
        for (std::size_t i = 0; i < 1 + v % (stride - 1); ++i)
            expected[v * stride + i] = base + static_cast<float>(v);
    CHECK(test::differences(out, expected) == "");
}
