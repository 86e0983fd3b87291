// Copies and waits between devices: every ordered pair of the devices present, on a queue of the
// source and of the destination, whole buffers and views, sizes below a staging piece and up to
// many pieces; waits for another device's events; what is refused.
#include "support.hpp"

#include <utility>

namespace {

std::vector<std::pair<dualrt::Device, dualrt::Device>> ordered_pairs() {
    const auto all = dualrt::devices();
    std::vector<std::pair<dualrt::Device, dualrt::Device>> pairs;
    for (const auto& a : all)
        for (const auto& b : all)
            if (a != b) pairs.emplace_back(a, b);
    return pairs;
}

std::string label(const dualrt::Device& d) {
    return std::string(dualrt::to_string(d.backend())) + " " + std::to_string(d.info().index);
}

// Sends `n` random floats from a view of a buffer on `from` to a view of one on `to`, with the
// copy enqueued on `on` (one of the two), and returns "" when they arrive and nothing else of
// the destination changed.
std::string send(const dualrt::Device& from, const dualrt::Device& to, const dualrt::Device& on,
                 std::size_t n, test::Random& rnd) {
    const std::size_t src_offset = rnd.size(0, 3) * 1024;  // aligned for OpenCL sub-buffers
    const std::size_t dst_offset = rnd.size(0, 3) * 1024;
    const auto data = rnd.float_bits(n);
    auto source = from.alloc<float>(src_offset + n);
    auto target = to.alloc<float>(dst_offset + n + 1024);
    auto from_queue = from.create_queue();
    auto to_queue = to.create_queue();
    from_queue.copy(source.view(src_offset, n), data, dualrt::Sync::blocking);
    to_queue.fill(target, test::poison_float()).wait();
    auto queue = on == from ? std::move(from_queue) : std::move(to_queue);
    queue.copy(target.view(dst_offset, n), source.view(src_offset, n));
    queue.finish();
    std::vector<float> back(target.size(), 0.0f);
    to.create_queue().copy(back, target, dualrt::Sync::blocking);
    for (std::size_t i = 0; i < dst_offset; ++i)
        if (!std::isnan(back[i]))
            return "element " + std::to_string(i) + " before the view changed";
    for (std::size_t i = dst_offset + n; i < back.size(); ++i)
        if (!std::isnan(back[i])) return "element " + std::to_string(i) + " after the view changed";
    return test::differences(back.data() + dst_offset, data.data(), n);
}

}  // namespace

TEST_CASE("multi-device: copies between every pair of devices, on either device's queue") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (const auto& [from, to] : ordered_pairs()) {
        for (const auto& on : {from, to}) {
            // Below a piece, a few pieces, and more pieces than staging buffers (each reused, the
            // pieces ramping up and down in size).
            for (std::size_t n : {std::size_t{1000}, (std::size_t{3} << 20) / sizeof(float) + 5,
                                  (std::size_t{40} << 20) / sizeof(float) + 7}) {
                CAPTURE(label(from));
                CAPTURE(label(to));
                CAPTURE(label(on));
                CAPTURE(n);
                CHECK(send(from, to, on, n, rnd) == "");
            }
        }
    }
}

TEST_CASE("multi-device: a blocking copy between devices is done on return") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (const auto& [from, to] : ordered_pairs()) {
        CAPTURE(label(from));
        CAPTURE(label(to));
        const std::size_t n = 70000;
        const auto data = rnd.float_bits(n);
        auto source = from.alloc<float>(n);
        auto target = to.alloc<float>(n);
        auto queue = from.create_queue();
        queue.copy(source, data);
        queue.copy(target, source, dualrt::Sync::blocking);
        std::vector<float> back(n, test::poison_float());
        to.create_queue().copy(back, target, dualrt::Sync::blocking);
        CHECK(test::differences(back, data) == "");
    }
}

TEST_CASE("multi-device: a queue waits for another device's event before its later work") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    for (const auto& [producer, consumer] : ordered_pairs()) {
        CAPTURE(label(producer));
        CAPTURE(label(consumer));
        const std::size_t n = 1 << 20;
        const float value = rnd.uniform(1.0f, 2.0f);
        auto produced = producer.alloc<float>(n);
        auto consumed = consumer.alloc<float>(n);
        auto make = producer.create_queue();
        auto use = consumer.create_queue();
        use.fill(consumed, test::poison_float()).wait();
        // The producer's fill is enqueued and not waited for by the host; the consumer's queue
        // orders its copy after it with a wait.
        const dualrt::Event filled = make.fill(produced, value);
        use.wait(filled);
        use.copy(consumed, produced);
        std::vector<float> back(n, 0.0f);
        use.copy(back, consumed, dualrt::Sync::blocking);
        CHECK(test::differences(back, std::vector<float>(n, value)) == "");
    }
}

TEST_CASE("multi-device: what a copy between devices refuses") {
    const auto all = dualrt::devices();
    REQUIRE(all.size() >= 2);
    auto a = all[0].alloc<float>(100);
    auto b = all[1].alloc<float>(99);
    auto queue = all[0].create_queue();
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "size mismatch", queue.copy(b, a));
    if (all.size() >= 3) {
        auto elsewhere = all[2].create_queue();
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "enqueue it on a queue of either device",
                           elsewhere.copy(b.view(0, 50), a.view(0, 50)));
    }
    CHECK_FALSE(all[0].peer_access(all[0]));
    CHECK(all[0].peer_access(all[1]) == all[1].peer_access(all[0]));
}
