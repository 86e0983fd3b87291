// Queue::fill writes its value into every element of the buffer or view, for every element size
// from 1 to 16 bytes, with the value's exact bytes.
#include "support.hpp"

#include <algorithm>

namespace {

struct Vec4 {  // a 16-byte element, as a user's struct would be
    std::uint32_t x, y, z, w;
};

}  // namespace

TEST_CASE_TEMPLATE("fill: every element of a whole buffer gets the value's bytes", T, float,
                   std::uint8_t, std::uint32_t, std::uint64_t, Vec4) {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    const std::size_t n = rnd.size(1, 100000);
    CAPTURE(n);
    const T value = rnd.bits<T>();  // any bit pattern: the fill is bytewise, even for a NaN float
    const T poison = test::complement(value);
    auto buffer = test::device().alloc<T>(n);
    q.copy(buffer, std::vector<T>(n, poison), dualrt::Sync::blocking);

    auto done = q.fill(buffer, value);
    REQUIRE(done.valid());
    std::vector<T> out(n, poison);
    q.copy(out, buffer).wait();
    CHECK(test::differences(out, std::vector<T>(n, value)) == "");
}

TEST_CASE_TEMPLATE("fill: a view is filled and the rest of the buffer is not", T, std::uint8_t,
                   float, std::uint64_t, Vec4) {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    const std::size_t n = rnd.size(3, 50000);
    const std::size_t offset = rnd.size(1, n - 2) | 1;  // odd: not aligned to anything larger
    const std::size_t count = rnd.size(1, n - offset);
    CAPTURE(n);
    CAPTURE(offset);
    CAPTURE(count);
    const T value = rnd.bits<T>();
    const T poison = test::complement(value);
    auto buffer = test::device().alloc<T>(n);
    q.copy(buffer, std::vector<T>(n, poison), dualrt::Sync::blocking);

    CHECK(q.fill(buffer.view(offset, count), value, dualrt::Sync::blocking).is_complete());
    std::vector<T> expected(n, poison);
    std::fill_n(expected.begin() + static_cast<std::ptrdiff_t>(offset), count, value);
    std::vector<T> out(n);  // poisoned with the opposite of what each element should read
    for (std::size_t i = 0; i < n; ++i) out[i] = test::complement(expected[i]);
    q.copy(out, buffer, dualrt::Sync::blocking);
    CHECK(test::differences(out, expected) == "");
}
