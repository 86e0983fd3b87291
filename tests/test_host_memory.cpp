// Pinned memory the way users hold it: views of a HostBuffer, plain pointers into one, and the
// application's own memory registered with Device::register_host. All of them are copied by DMA:
// every element arrives, nothing goes through the staging pool, and bad requests are named.
#include "support.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace {

// Copies of at least this many floats would be staged if they were pageable.
std::size_t staged_floats() {
    const dualrt::StagingStats stats = test::device().staging_stats();
    return std::max(stats.min_staged_upload_bytes, stats.min_staged_download_bytes) /
               sizeof(float) +
           1000;
}

// Page-aligned memory the test owns, as an application would hold it.
struct AppMemory {
    explicit AppMemory(std::size_t n)
        : floats(n), data(static_cast<float*>(std::aligned_alloc(4096, round_up(n)))) {
        REQUIRE(data != nullptr);
    }
    ~AppMemory() { std::free(data); }
    AppMemory(const AppMemory&) = delete;
    AppMemory& operator=(const AppMemory&) = delete;
    static std::size_t round_up(std::size_t n) { return (n * sizeof(float) + 4095) / 4096 * 4096; }
    std::size_t floats;
    float* data;
};

// Uploads floats [offset, offset + n) from `upload`, downloads them into `download` at the same
// offset (poisoned first), and returns "" when they match `data`.
template <typename Up, typename Down>
std::string through(dualrt::Queue& queue, const std::vector<float>& data, Up&& upload,
                    Down&& download, float* landing) {
    auto buffer = queue.device().alloc<float>(data.size());
    queue.fill(buffer, test::poison_float());
    upload(buffer).wait();  // the source is the landing place: poisoned only after the upload
    std::fill(landing, landing + data.size(), test::poison_float());
    download(buffer).wait();
    return test::differences(landing, data.data(), data.size());
}

}  // namespace

TEST_CASE("host memory: views of a HostBuffer copy by DMA, both ways") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto queue = test::device().create_queue();
    const std::size_t n = staged_floats();
    const std::size_t offset = rnd.size(1, 5000);
    auto host = test::device().alloc_host<float>(offset + n + 100);
    std::fill(host.begin(), host.end(), test::poison_float());
    const auto data = rnd.float_bits(n);
    std::copy(data.begin(), data.end(), host.begin() + offset);
    const auto before = test::device().staging_stats();

    auto view = host.view(offset, n);
    CHECK(view.size() == n);
    CHECK(view.data() == host.data() + offset);
    CHECK(view.bytes() == n * sizeof(float));
    const auto result = through(
        queue, data, [&](auto& buffer) { return queue.copy(buffer, view); },
        [&](auto& buffer) { return queue.copy(view, buffer); }, view.data());
    CHECK(result == "");
    CHECK(std::isnan(host[offset - 1]));  // the download left the neighbours alone
    CHECK(std::isnan(host[offset + n]));
    CHECK(test::device().staging_stats().staged_copies == before.staged_copies);
}

TEST_CASE("host memory: a view keeps its buffer's memory alive") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto queue = test::device().create_queue();
    const auto data = rnd.float_bits(4096);
    dualrt::HostBuffer<float> view;
    {
        auto host = test::device().alloc_host<float>(8192);
        view = host.view(1024, data.size());
    }
    std::copy(data.begin(), data.end(), view.begin());
    auto buffer = test::device().alloc<float>(data.size());
    queue.copy(buffer, view);
    std::vector<float> back(data.size(), test::poison_float());
    queue.copy(back, buffer, dualrt::Sync::blocking);
    CHECK(test::differences(back, data) == "");
}

TEST_CASE("host memory: a view that does not fit is out_of_range") {
    auto host = test::device().alloc_host<float>(100);
    CHECK_DUALRT_ERROR(dualrt::Errc::out_of_range, "do not fit in a buffer of 100 elements",
                       host.view(90, 11));
    CHECK_DUALRT_ERROR(dualrt::Errc::out_of_range, "do not fit", host.view(101, 0));
    CHECK_DUALRT_ERROR(dualrt::Errc::out_of_range, "do not fit",
                       host.view(1, std::numeric_limits<std::size_t>::max()));
    CHECK(host.view(100, 0).size() == 0);
    CHECK(host.view(0, 100).data() == host.data());
}

TEST_CASE("host memory: a plain pointer into a HostBuffer is copied by DMA, never staged") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto queue = test::device().create_queue();
    const std::size_t n = staged_floats();
    const std::size_t offset = rnd.size(1, 5000);
    auto host = test::device().alloc_host<float>(offset + n);
    const auto data = rnd.float_bits(n);
    std::copy(data.begin(), data.end(), host.begin() + offset);
    const auto before = test::device().staging_stats();
    float* inside = host.data() + offset;
    const auto result = through(
        queue, data, [&](auto& buffer) { return queue.copy(buffer, inside, n); },
        [&](auto& buffer) { return queue.copy(inside, n, buffer); }, inside);
    CHECK(result == "");
    CHECK(test::device().staging_stats().staged_copies == before.staged_copies);

    // The same copy from pageable memory is staged (so the counter above could have moved).
    std::vector<float> pageable(data);
    auto buffer = test::device().alloc<float>(n);
    queue.copy(buffer, pageable, dualrt::Sync::blocking);
    CHECK(test::device().staging_stats().staged_copies == before.staged_copies + 1);
}

TEST_CASE("host memory: registered application memory copies by DMA and is unpinned after") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto queue = test::device().create_queue();
    const std::size_t n = staged_floats();
    AppMemory memory(2 * n);
    const auto data = rnd.float_bits(n);
    const auto before = test::device().staging_stats();
    {
        auto registered = test::device().register_host(memory.data, memory.floats);
        CHECK(registered.valid());
        CHECK(registered.data() == memory.data);
        CHECK(registered.size() == memory.floats);
        // Through a view, and through a plain pointer inside it.
        auto second_half = registered.view(n, n);
        std::copy(data.begin(), data.end(), second_half.begin());
        CHECK(through(
                  queue, data, [&](auto& buffer) { return queue.copy(buffer, second_half); },
                  [&](auto& buffer) { return queue.copy(second_half, buffer); },
                  second_half.data()) == "");
        std::copy(data.begin(), data.end(), memory.data);
        CHECK(through(
                  queue, data, [&](auto& buffer) { return queue.copy(buffer, memory.data, n); },
                  [&](auto& buffer) { return queue.copy(memory.data, n, buffer); },
                  memory.data) == "");
        CHECK(test::device().staging_stats().staged_copies == before.staged_copies);

        // Pinned once: a second registration of any part of it is refused.
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "overlaps a range registered before",
                           test::device().register_host(memory.data + 10, 100));
        queue.finish();
    }
    // The last HostBuffer is gone: the range is unpinned and can be registered again.
    auto again = test::device().register_host(memory.data, n);
    CHECK(again.data() == memory.data);
}

TEST_CASE("host memory: register_host refuses what it cannot pin") {
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "the pointer is null",
                       test::device().register_host(static_cast<float*>(nullptr), 10));
    AppMemory memory(1000);
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "0 elements",
                       test::device().register_host(memory.data, 0));
    auto host = test::device().alloc_host<float>(1000);
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "overlaps a pinned buffer from "
                                                       "Device::alloc_host",
                       test::device().register_host(host.data() + 5, 10));
    // The library is still usable afterwards.
    test::Random rnd;
    auto queue = test::device().create_queue();
    CHECK(test::run_saxpy(queue, 1000, rnd.engine) == "");
}
