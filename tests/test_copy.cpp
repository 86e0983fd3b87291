// Copies host -> device -> host and device -> device move every element exactly, from and to
// std::vector, raw pointers and pinned HostBuffers, asynchronously and blocking.
#include "support.hpp"

#include <algorithm>

namespace {

enum class HostKind { vector, pointer, pinned };
const char* name(HostKind kind) {
    return kind == HostKind::vector ? "vector" : kind == HostKind::pointer ? "pointer" : "pinned";
}
const char* name(dualrt::Sync sync) { return sync == dualrt::Sync::async ? "async" : "blocking"; }

// Uploads `data` into `dst` from a host source of the given kind, then overwrites that source
// with poison: after a blocking copy (or the async copy's event) the source is no longer read.
void upload(dualrt::Queue& q, const dualrt::Buffer<float>& dst, const std::vector<float>& data,
            HostKind kind, dualrt::Sync sync) {
    dualrt::Event done;
    std::vector<float> source = data;
    dualrt::HostBuffer<float> pinned;
    if (kind == HostKind::vector) {
        done = q.copy(dst, source, sync);
    } else if (kind == HostKind::pointer) {
        done = q.copy(dst, source.data(), source.size(), sync);
    } else {
        pinned = q.device().alloc_host<float>(data.size());
        std::copy(data.begin(), data.end(), pinned.begin());
        done = q.copy(dst, pinned, sync);
    }
    REQUIRE(done.valid());
    if (sync == dualrt::Sync::blocking)
        CHECK(done.is_complete());
    else
        done.wait();
    std::fill(source.begin(), source.end(), test::poison_float());
    if (pinned.valid()) std::fill(pinned.begin(), pinned.end(), test::poison_float());
}

// Reads all of `src` into a poisoned host destination of the given kind and returns it.
std::vector<float> download(dualrt::Queue& q, const dualrt::Buffer<float>& src, HostKind kind,
                            dualrt::Sync sync) {
    std::vector<float> out(src.size(), test::poison_float());
    dualrt::HostBuffer<float> pinned;
    dualrt::Event done;
    if (kind == HostKind::vector) {
        done = q.copy(out, src, sync);
    } else if (kind == HostKind::pointer) {
        done = q.copy(out.data(), out.size(), src, sync);
    } else {
        pinned = q.device().alloc_host<float>(src.size());
        std::fill(pinned.begin(), pinned.end(), test::poison_float());
        done = q.copy(pinned, src, sync);
    }
    REQUIRE(done.valid());
    if (sync == dualrt::Sync::blocking)
        CHECK(done.is_complete());  // blocking: the data is there without waiting
    else
        done.wait();
    if (pinned.valid()) std::copy(pinned.begin(), pinned.end(), out.begin());
    return out;
}

}  // namespace

TEST_CASE("copy: host -> device -> host with every host kind and sync mode") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    const HostKind kinds[] = {HostKind::vector, HostKind::pointer, HostKind::pinned};
    const dualrt::Sync syncs[] = {dualrt::Sync::async, dualrt::Sync::blocking};
    for (const std::size_t n : {std::size_t{1}, std::size_t{7}, rnd.size(1000, 5000) | 1,
                                (std::size_t{1} << 20) + 3}) {
        CAPTURE(n);
        const auto data = rnd.float_bits(n);
        auto buffer = test::device().alloc<float>(n);
        for (const auto in : kinds)
            for (const auto out : kinds)
                for (const auto sync : syncs) {
                    INFO("from " << name(in) << " to " << name(out) << ", " << name(sync));
                    q.fill(buffer, test::poison_float());  // an unwritten element stays NaN
                    upload(q, buffer, data, in, sync);
                    CHECK(test::differences(download(q, buffer, out, sync), data) == "");
                }
    }
}

TEST_CASE("copy: 16 Mi floats through pinned and pageable memory") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = std::size_t{16} << 20;
    const auto data = rnd.float_bits(n);
    auto q = test::device().create_queue();
    auto buffer = test::device().alloc<float>(n);

    SUBCASE("pageable, async, in-order: wait only for the last copy") {
        std::vector<float> out(n, test::poison_float());
        q.fill(buffer, test::poison_float());
        q.copy(buffer, data);
        q.copy(out, buffer).wait();
        CHECK(test::differences(out, data) == "");
    }
    SUBCASE("pinned, async") {
        auto pinned = test::device().alloc_host<float>(n);
        std::copy(data.begin(), data.end(), pinned.begin());
        q.fill(buffer, test::poison_float());
        q.copy(buffer, pinned);
        auto back = test::device().alloc_host<float>(n);
        std::fill(back.begin(), back.end(), test::poison_float());
        q.copy(back, buffer).wait();
        CHECK(test::differences(back.data(), data.data(), n) == "");
    }
}

TEST_CASE("copy: device -> device, whole buffers and disjoint views of one buffer") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    const std::size_t n = rnd.size(1000, 100000);
    CAPTURE(n);
    const auto data = rnd.float_bits(n);
    auto a = test::device().alloc<float>(n);
    auto b = test::device().alloc<float>(n);
    q.copy(a, data);
    q.fill(b, test::poison_float());

    SUBCASE("async") {
        q.copy(b, a);
        std::vector<float> out(n);
        q.copy(out, b).wait();
        CHECK(test::differences(out, data) == "");
    }
    SUBCASE("blocking") {
        CHECK(q.copy(b, a, dualrt::Sync::blocking).is_complete());
        std::vector<float> out(n);
        q.copy(out, b, dualrt::Sync::blocking);
        CHECK(test::differences(out, data) == "");
    }
    SUBCASE("within one buffer: [0, k) -> [k + gap, 2k + gap)") {
        const std::size_t k = n / 3, gap = rnd.size(0, n - 2 * k);
        CAPTURE(k);
        CAPTURE(gap);
        q.copy(a.view(k + gap, k), a.view(0, k));
        std::vector<float> out(n);
        q.copy(out, a, dualrt::Sync::blocking);
        auto expected = data;
        std::copy(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(k),
                  expected.begin() + static_cast<std::ptrdiff_t>(k + gap));
        CHECK(test::differences(out, expected) == "");
    }
}

TEST_CASE("copy: other element types keep their bytes") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    const std::size_t n = rnd.size(1, 3000);
    CAPTURE(n);
    std::vector<std::uint8_t> bytes(n);
    for (auto& b : bytes) b = rnd.bits<std::uint8_t>();
    std::vector<double> doubles(n);
    for (auto& d : doubles) d = static_cast<double>(rnd.uniform(-1e6f, 1e6f)) / 3.0;

    auto db = test::device().alloc<std::uint8_t>(n);
    auto dd = test::device().alloc<double>(n);
    q.copy(db, bytes);
    q.copy(dd, doubles);
    std::vector<std::uint8_t> bytes_out(n);
    for (std::size_t i = 0; i < n; ++i) bytes_out[i] = test::complement(bytes[i]);
    std::vector<double> doubles_out(n, std::numeric_limits<double>::quiet_NaN());
    q.copy(bytes_out, db);
    q.copy(doubles_out, dd, dualrt::Sync::blocking);  // in order: the first read is done too
    CHECK(test::differences(bytes_out, bytes) == "");
    CHECK(test::differences(doubles_out, doubles) == "");
}
