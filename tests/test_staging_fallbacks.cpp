// Device-free tests of the staging pool when the system refuses to pin host memory: copies from
// pageable memory must still arrive whole, through a smaller staging buffer or through the
// driver's own pageable path, and the pool must say which in its statistics.
#include "fake_backend.hpp"
#include "support.hpp"

#include <numeric>

namespace {

struct FakeDevice {
    std::shared_ptr<test::fake::Device> backend = std::make_shared<test::fake::Device>("fake");
    dualrt::Device device{backend};
};

// Sends `count` random floats to the device and back through pageable host memory; returns the
// differences ("" when the data arrived whole).
std::string round_trip(const dualrt::Device& device, std::size_t count, test::Random& rnd) {
    auto queue = device.create_queue();
    const auto sent = rnd.floats(count);
    auto buffer = device.alloc<float>(count);
    queue.copy(buffer, sent);
    std::vector<float> back(count, test::poison_float());
    queue.copy(back, buffer, dualrt::Sync::blocking);
    return test::differences(back, sent);
}

constexpr std::size_t sixteen_mib_of_floats = std::size_t{4} << 20;

}  // namespace

TEST_CASE("staging fallbacks: pinning refused with out_of_memory, copies take the pageable path") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    FakeDevice fake;
    fake.backend->pinnable_bytes = 0;  // every pin fails
    CHECK(round_trip(fake.device, sixteen_mib_of_floats, rnd) == "");
    const auto stats = fake.device.staging_stats();
    CHECK(stats.pageable_fallbacks == 2);  // the upload and the download
    CHECK(stats.staged_copies == 0);
    CHECK(stats.pinned_bytes == 0);
    CHECK(fake.backend->pinned_buffers == 0);

    SUBCASE("once pinning works again, copies are staged") {
        fake.backend->pinnable_bytes = std::size_t{1} << 30;
        CHECK(round_trip(fake.device, sixteen_mib_of_floats, rnd) == "");
        CHECK(fake.device.staging_stats().staged_copies == 2);
        CHECK(fake.backend->pinned_buffers > 0);
    }
}

TEST_CASE("staging fallbacks: pinning only small buffers stages through smaller ones") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    FakeDevice fake;
    const auto chunk = fake.device.staging_stats().chunk_bytes;
    REQUIRE(chunk >= 4096);
    fake.backend->pinnable_bytes = chunk / 4;
    CHECK(round_trip(fake.device, sixteen_mib_of_floats, rnd) == "");
    const auto stats = fake.device.staging_stats();
    CHECK(stats.smaller_fallbacks > 0);
    CHECK(stats.pageable_fallbacks == 0);
    CHECK(stats.staged_copies == 2);
    CHECK(stats.pinned_bytes > 0);
    CHECK(stats.pinned_bytes <= stats.limit_bytes);
}
