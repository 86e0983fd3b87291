// Copies from and to pageable host memory go through the device's pinned staging pool in
// chunks: every element arrives, for sizes that do and do not fill whole chunks, into views, from
// several threads at once, under a small limit, through a single buffer, and with staging
// turned off.
#include "support.hpp"

#include <thread>

namespace {

// Host -> device -> host through pageable vectors; "" when every element came back.
// staged: the upload goes through the pool (min_staged_upload_bytes and more, staging on), so it
// has read its source on return and overwriting it at once must not matter; otherwise the source
// must outlive the copy's event.
std::string round_trip(dualrt::Queue& queue, std::size_t n, test::Random& rnd,
                       dualrt::Sync sync = dualrt::Sync::async, bool staged = true) {
    const auto data = rnd.float_bits(n);
    auto source = data;
    auto buffer = queue.device().alloc<float>(n);
    auto uploaded = queue.copy(buffer, source, sync);
    if (!staged || n * sizeof(float) < test::device().staging_stats().min_staged_upload_bytes)
        uploaded.wait();
    std::fill(source.begin(), source.end(), test::poison_float());
    std::vector<float> back(n, test::poison_float());
    queue.copy(back, buffer, sync).wait();
    return test::differences(back, data);
}

// Restores the default limit when a case that changed it ends, however it ends.
struct DefaultLimit {
    ~DefaultLimit() { test::device().set_staging_limit(256u << 20); }
};

}  // namespace

TEST_CASE("staging: pageable copies of many sizes arrive whole") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto queue = test::device().create_queue();
    const auto before = test::device().staging_stats();
    const std::size_t chunk_floats = before.chunk_bytes / sizeof(float);
    REQUIRE(chunk_floats > 0);
    const std::size_t upload = before.min_staged_upload_bytes / sizeof(float);
    const std::size_t download = before.min_staged_download_bytes / sizeof(float);
    for (std::size_t n : {std::size_t{1000}, upload - 1, upload, download - 1, download,
                          chunk_floats, chunk_floats + 1, 3 * chunk_floats - 7,
                          rnd.size(5 * chunk_floats, 6 * chunk_floats)}) {
        CAPTURE(n);
        CHECK(round_trip(queue, n, rnd) == "");
        CHECK(round_trip(queue, n, rnd, dualrt::Sync::blocking) == "");
    }
    const auto after = test::device().staging_stats();
    CHECK(after.staged_copies > before.staged_copies);
    CHECK(after.staged_bytes > before.staged_bytes);
    CHECK(after.pinned_bytes <= after.limit_bytes);
    CHECK(after.buffers >= 1);
    CHECK(after.hits > before.hits);  // the buffers were reused, not pinned again
}

TEST_CASE("staging: copies into and out of views of a larger buffer") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto queue = test::device().create_queue();
    const std::size_t n = 3 * test::device().staging_stats().chunk_bytes / sizeof(float) + 5;
    const std::size_t offset = rnd.size(1, 1000);
    auto buffer = test::device().alloc<float>(n + offset + 17);
    queue.fill(buffer, test::poison_float());
    const auto data = rnd.float_bits(n);
    queue.copy(buffer.view(offset, n), data);
    std::vector<float> all(buffer.size(), 0.0f);
    queue.copy(all, buffer, dualrt::Sync::blocking);
    CHECK(test::differences(all.data() + offset, data.data(), n) == "");
    CHECK(std::isnan(all[offset - 1]));  // the neighbours were left alone
    CHECK(std::isnan(all[offset + n]));
    std::vector<float> part(n, test::poison_float());
    queue.copy(part, buffer.view(offset, n), dualrt::Sync::blocking);
    CHECK(test::differences(part, data) == "");
}

TEST_CASE("staging: a small limit and staging turned off still copy everything") {
    DefaultLimit restore;
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto queue = test::device().create_queue();
    const std::size_t n = (std::size_t{5} << 20) / sizeof(float) + 3;

    test::device().set_staging_limit(1u << 20);
    auto stats = test::device().staging_stats();
    if (stats.limit_bytes != (1u << 20)) {
        MESSAGE("DUALRT_STAGING_LIMIT is set, so the limit cannot be changed here");
        return;
    }
    CHECK(stats.chunk_bytes <= stats.limit_bytes / 2);
    CHECK(round_trip(queue, n, rnd) == "");
    stats = test::device().staging_stats();
    CHECK(stats.pinned_bytes <= (1u << 20));  // buffers above the new limit were released

    test::device().set_staging_limit(0);
    const auto off = test::device().staging_stats();
    CHECK(round_trip(queue, n, rnd, dualrt::Sync::async, false) == "");
    CHECK(test::device().staging_stats().staged_copies == off.staged_copies);
}

// A pool that can lend one buffer: every piece of a copy goes through it in turn, so each piece's
// host copy must wait until the previous piece's DMA has read the buffer.
TEST_CASE("staging: a pool of one buffer still copies everything") {
    DefaultLimit restore;
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto queue = test::device().create_queue();
    test::device().set_staging_limit(96u << 10);
    const auto before = test::device().staging_stats();
    if (before.limit_bytes != (96u << 10)) {
        MESSAGE("DUALRT_STAGING_LIMIT is set, so the limit cannot be changed here");
        return;
    }
    REQUIRE(before.chunk_bytes * 2 > before.limit_bytes);  // room for one buffer, not two
    const std::size_t n = before.min_staged_download_bytes / sizeof(float) + rnd.size(1, 100000);
    CHECK(round_trip(queue, n, rnd) == "");
    CHECK(round_trip(queue, n, rnd, dualrt::Sync::blocking) == "");
    const auto after = test::device().staging_stats();
    CHECK(after.staged_copies >= before.staged_copies + 4);  // both ways, twice: all staged
    CHECK(after.buffers <= 1);
}

TEST_CASE("staging: threads copying through one pool at once") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = 2 * test::device().staging_stats().chunk_bytes / sizeof(float) + 11;
    std::vector<std::string> results(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < results.size(); ++t) {
        threads.emplace_back([&, t] {
            try {
                test::Random own;
                own.engine.seed(rnd.seed + static_cast<std::uint32_t>(t));
                auto queue = test::device().create_queue();
                for (int i = 0; i < 3 && results[t].empty(); ++i)
                    results[t] = round_trip(queue, n + t, own);
            } catch (const std::exception& e) {
                results[t] = e.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (const auto& result : results) CHECK(result == "");
    const auto stats = test::device().staging_stats();
    CHECK(stats.pinned_bytes <= stats.limit_bytes);
}
