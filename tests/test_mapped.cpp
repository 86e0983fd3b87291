// MappedBuffer (zero-copy): kernels read and write host memory in place; the host reads and
// writes it during its turns (HostAccess), and nothing else. The same rules hold on every backend.
#include "support.hpp"

#include <algorithm>
#include <utility>

namespace {

std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

// Whole-buffer writes and reads, each in one host turn on `queue`.
template <typename T>
void host_write(const dualrt::MappedBuffer<T>& mapped, dualrt::Queue& queue,
                const std::vector<T>& values) {
    auto host = mapped.host(queue);
    REQUIRE(host.size() == values.size());
    std::copy(values.begin(), values.end(), host.begin());
}

template <typename T>
std::vector<T> host_read(const dualrt::MappedBuffer<T>& mapped, dualrt::Queue& queue) {
    auto host = mapped.host(queue);
    return std::vector<T>(host.begin(), host.end());
}

template <typename T>
std::vector<T> random_bits(test::Random& rnd, std::size_t n) {
    std::vector<T> out(n);
    for (auto& v : out) v = rnd.bits<T>();
    return out;
}

}  // namespace

TEST_CASE("mapped: the device's zero-copy properties are consistent") {
    const auto& info = test::device().info();
    const std::string type = dualrt::to_string(info.type);
    CAPTURE(info.name);
    CAPTURE(type);
    CHECK(info.zero_copy_worthwhile() == (info.can_map_host_memory && info.shares_host_memory));
    // Every OpenCL device maps buffers; every GPU dualrt's CUDA backend supports (sm_75 and up)
    // maps host memory.
    CHECK(info.can_map_host_memory);
    if (info.type == dualrt::DeviceType::cpu) {
        CHECK(info.shares_host_memory);
        CHECK(info.zero_copy_worthwhile());
    }
    MESSAGE("'" << info.name << "': shares host memory " << info.shares_host_memory
                << ", can map host memory " << info.can_map_host_memory
                << ", zero-copy worthwhile " << info.zero_copy_worthwhile());
}

TEST_CASE("mapped: a kernel reads what the host wrote") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1, 300000);
    const float a = rnd.uniform(0.5f, 2.0f);
    CAPTURE(n);
    auto q = test::device().create_queue();
    auto x = test::device().alloc_mapped<float>(n);
    REQUIRE(x.size() == n);
    REQUIRE(x.bytes() == n * sizeof(float));
    CHECK(!x.host_held());
    auto dy = test::device().alloc<float>(n);

    // Two rounds: the second turn must see the device's view of the first turn's writes replaced
    // (OpenCL maps anew, possibly at another address).
    for (int round = 0; round < 2; ++round) {
        CAPTURE(round);
        const auto xs = rnd.floats(n);
        const auto ys = rnd.floats(n);
        host_write(x, q, xs);
        q.copy(dy, ys);
        q.launch(test::device().kernel("saxpy"), n, dualrt::Range{}, u32(n), a, x.device_view(),
                 dy);
        std::vector<float> out(n, test::poison_float());
        q.copy(out, dy, dualrt::Sync::blocking);
        CHECK(test::saxpy_differences(out, a, xs, ys) == "");
    }
}

TEST_CASE("mapped: the host reads what a kernel wrote once host(queue) returns") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1, 300000);
    constexpr std::size_t guard = 37;
    CAPTURE(n);
    auto q = test::device().create_queue();
    auto out = test::device().alloc_mapped<float>(n + guard);

    SUBCASE("fill writes [0, n) of a view and nothing past it") {
        host_write(out, q, std::vector<float>(n + guard, test::poison_float()));
        const float value = rnd.uniform(-100.0f, 100.0f);
        q.launch(test::device().kernel("fill"), n, dualrt::Range{}, out.device_view().view(0, n),
                 value, u32(n));
        // No finish: host() waits for the queue's work itself, which is the documented point.
        const auto got = host_read(out, q);
        std::vector<float> expected(n, value);
        expected.resize(n + guard, test::poison_float());
        CHECK(test::differences(got, expected) == "");
    }
    SUBCASE("saxpy updates y in place in mapped memory") {
        const float a = rnd.uniform(0.5f, 2.0f);
        const auto xs = rnd.floats(n);
        auto ys = rnd.floats(n + guard);
        host_write(out, q, ys);
        auto dx = test::device().alloc<float>(n);
        q.copy(dx, xs);
        q.launch(test::device().kernel("saxpy"), n, dualrt::Range{}, u32(n), a, dx,
                 out.device_view());
        const auto got = host_read(out, q);
        CHECK(test::saxpy_differences(std::vector<float>(got.begin(), got.begin() + n), a, xs,
                                      std::vector<float>(ys.begin(), ys.begin() + n)) == "");
        CHECK(test::differences(std::vector<float>(got.begin() + n, got.end()),
                                std::vector<float>(ys.begin() + n, ys.end())) == "");
    }
}

TEST_CASE("mapped: copies and fills to and from the device view") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    // Large enough for a view at element 1024 (4 KiB: a valid OpenCL sub-buffer origin on every
    // device we know) and for the core's staged copies.
    const std::size_t n = rnd.size(2048, 200000);
    CAPTURE(n);
    auto q = test::device().create_queue();
    auto mapped = test::device().alloc_mapped<std::uint32_t>(n);
    auto device = test::device().alloc<std::uint32_t>(n);

    const auto a = random_bits<std::uint32_t>(rnd, n);
    host_write(mapped, q, a);
    q.fill(device, test::poison_u32);
    q.copy(device, mapped.device_view());  // mapped -> device memory
    std::vector<std::uint32_t> out(n, test::poison_u32);
    q.copy(out, device, dualrt::Sync::blocking);
    CHECK(test::differences(out, a) == "");

    const auto b = random_bits<std::uint32_t>(rnd, n);
    q.copy(mapped.device_view(), b);  // host -> mapped, as into any device buffer
    CHECK(test::differences(host_read(mapped, q), b) == "");
    std::fill(out.begin(), out.end(), test::poison_u32);
    q.copy(out, mapped.device_view(), dualrt::Sync::blocking);  // mapped -> host
    CHECK(test::differences(out, b) == "");

    const auto c = random_bits<std::uint32_t>(rnd, n);
    q.copy(device, c);
    q.copy(mapped.device_view(), device);  // device memory -> mapped
    CHECK(test::differences(host_read(mapped, q), c) == "");

    const std::size_t offset = 1024;
    const std::size_t count = rnd.size(1, n - offset);
    const auto value = rnd.bits<std::uint32_t>();
    CAPTURE(count);
    q.fill(mapped.device_view().view(offset, count), value);
    auto expected = c;
    std::fill(expected.begin() + static_cast<std::ptrdiff_t>(offset),
              expected.begin() + static_cast<std::ptrdiff_t>(offset + count), value);
    CHECK(test::differences(host_read(mapped, q), expected) == "");
}

TEST_CASE("mapped: device work is refused while the host holds the memory") {
    const std::size_t n = 4096;
    auto q = test::device().create_queue();
    auto mapped = test::device().alloc_mapped<float>(n);
    const auto fill = test::device().kernel("fill");
    std::vector<float> values(n, 1.0f);
    {
        auto host = mapped.host(q);
        CHECK(host.active());
        CHECK(mapped.host_held());
        REQUIRE(host.data() != nullptr);
        CHECK(host.size() == n);
        CHECK(host.bytes() == n * sizeof(float));
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "host holds this mapped buffer",
                           q.launch(fill, n, dualrt::Range{}, mapped.device_view(), 2.0f, u32(n)));
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "host holds this mapped buffer",
                           q.copy(mapped.device_view(), values));
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "host holds this mapped buffer",
                           q.fill(mapped.device_view(), 0.0f));
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "already holds", mapped.host(q));
        std::fill(host.begin(), host.end(), 3.0f);  // the host's turn is still intact

        host.release();
        CHECK(!host.active());
        CHECK(host.data() == nullptr);
        CHECK(host.size() == 0);
        CHECK(!mapped.host_held());
        host.release();  // nothing left to release: no effect
    }
    // The device's turn again: the refused commands did nothing, the host's writes are there.
    q.launch(fill, n / 2, dualrt::Range{}, mapped.device_view().view(0, n / 2), 2.0f,
             u32(n / 2));
    const auto got = host_read(mapped, q);
    std::vector<float> expected(n, 3.0f);
    std::fill(expected.begin(), expected.begin() + n / 2, 2.0f);
    CHECK(test::differences(got, expected) == "");

    SUBCASE("a moved HostAccess carries the turn") {
        auto first = mapped.host(q);
        dualrt::HostAccess<float> second = std::move(first);
        CHECK(!first.active());  // NOLINT(bugprone-use-after-move): moved-from is documented
        CHECK(second.active());
        CHECK(mapped.host_held());
        second = dualrt::HostAccess<float>();  // ends the turn, like release()
        CHECK(!mapped.host_held());
    }
    SUBCASE("empty objects") {
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "empty",
                           dualrt::MappedBuffer<float>().host(q));
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "empty",
                           dualrt::MappedBuffer<float>().device_view());
        dualrt::Queue none;
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "Queue is empty", mapped.host(none));
        CHECK(!dualrt::MappedBuffer<float>().valid());
        CHECK(dualrt::MappedBuffer<float>().size() == 0);
    }
}

TEST_CASE("mapped: the memory lives while a view or a host turn holds it") {
    const std::size_t n = 1000;
    auto q = test::device().create_queue();
    dualrt::Buffer<float> view;
    dualrt::HostAccess<float> host;
    {
        auto mapped = test::device().alloc_mapped<float>(n);
        view = mapped.device_view();
        host = mapped.host(q);
    }
    std::fill(host.begin(), host.end(), 5.0f);
    host.release();
    q.launch(test::device().kernel("fill"), n / 2, dualrt::Range{}, view.view(0, n / 2), 7.0f,
             u32(n / 2));
    std::vector<float> out(n, test::poison_float());
    q.copy(out, view, dualrt::Sync::blocking);
    std::vector<float> expected(n, 5.0f);
    std::fill(expected.begin(), expected.begin() + n / 2, 7.0f);
    CHECK(test::differences(out, expected) == "");
}

TEST_CASE("mapped: bad sizes are refused before the backend sees them") {
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "0 elements",
                       test::device().alloc_mapped<float>(0));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "overflow",
                       test::device().alloc_mapped<double>(static_cast<std::size_t>(-1) / 4));
    // Representable, but more than any host can pin.
    CHECK_DUALRT_ERROR(dualrt::Errc::out_of_memory, "physical memory",
                       test::device().alloc_mapped<float>(static_cast<std::size_t>(-1) / 8));
}

TEST_CASE("mapped: a queue of another device is refused") {
    const dualrt::Device* other = nullptr;
    const auto all = dualrt::devices();
    for (const auto& device : all) {
        if (device != test::device()) {
            other = &device;
            break;
        }
    }
    if (other == nullptr) {
        MESSAGE("one device only: nothing to mix up (the check runs where there are two)");
        return;
    }
    CAPTURE(other->name());
    const std::size_t n = 1000;
    auto mapped = test::device().alloc_mapped<float>(n);
    auto q = other->create_queue();
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "queue runs on", mapped.host(q));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "queue runs on",
                       q.launch(other->kernel("fill"), n, dualrt::Range{}, mapped.device_view(),
                                1.0f, u32(n)));
    std::vector<float> values(n, 1.0f);
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "queue runs on",
                       q.copy(mapped.device_view(), values));
    CHECK(!mapped.host_held());
}
