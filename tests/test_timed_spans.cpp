// Timed spans (backend::QueueImpl::begin_timed_span / end_timed_span), which time a Pipeline's
// stages: a span reads from its first command's start to its last command's end, within timed
// events recorded around it; a span with no command still gives two ordered points; a point
// taken inside a span (mark(), the commands' own events) still orders other queues' work; and
// finish() closes a span left open. On backends that time with record() (CUDA) the spans are
// record()s, and the same holds.
#include "backend/backend.hpp"
#include "backend/backend_access.hpp"
#include "support.hpp"

#include <cstdint>
#include <vector>

namespace {

dualrt::Event begin_span(dualrt::Queue& queue) {
    return dualrt::Event(dualrt::detail::backend_of(queue)->begin_timed_span());
}
dualrt::Event end_span(dualrt::Queue& queue) {
    return dualrt::Event(dualrt::detail::backend_of(queue)->end_timed_span());
}

template <typename T>
std::vector<T> read(dualrt::Queue& queue, const dualrt::Buffer<T>& buffer) {
    std::vector<T> host(buffer.size());
    queue.copy(host, buffer, dualrt::Sync::blocking);
    return host;
}

}  // namespace

TEST_CASE("timed spans: a span of commands lies within timed events recorded around it") {
    const auto& device = test::device();
    auto queue = device.create_queue();
    const std::size_t n = std::size_t{4} << 20;  // 16 MiB: the fills take a measurable while
    auto buffer = device.alloc<std::uint32_t>(n);
    std::vector<std::uint32_t> host(n, 0u);

    const dualrt::Event before = queue.record();
    const dualrt::Event first = begin_span(queue);
    queue.fill(buffer, 0x5eedu);
    queue.fill(buffer, 0xc0ffeeu);
    const dualrt::Event last = end_span(queue);
    const dualrt::Event after = queue.record();
    queue.copy(host, buffer, dualrt::Sync::blocking);

    CHECK(host.front() == 0xc0ffeeu);
    CHECK(host.back() == 0xc0ffeeu);
    const double span = dualrt::Event::elapsed_ms(first, last);
    const double around = dualrt::Event::elapsed_ms(before, after);
    MESSAGE("span " << span << " ms within " << around << " ms; commands timed themselves: "
                    << dualrt::detail::backend_of(queue)->times_commands());
    CHECK(span >= 0.0);
    CHECK(span <= around);
    CHECK(dualrt::Event::elapsed_ms(before, first) >= 0.0);
    CHECK(dualrt::Event::elapsed_ms(last, after) >= 0.0);
}

TEST_CASE("timed spans: an empty span gives two ordered points, and a span closes for the next") {
    const auto& device = test::device();
    auto queue = device.create_queue();
    auto buffer = device.alloc<float>(1024);
    const dualrt::Event first = begin_span(queue);
    const dualrt::Event last = end_span(queue);
    queue.fill(buffer, 1.0f);  // after the span: not part of it
    const dualrt::Event second_first = begin_span(queue);
    queue.fill(buffer, 2.0f);
    const dualrt::Event second_last = end_span(queue);
    queue.finish();
    CHECK(dualrt::Event::elapsed_ms(first, last) >= 0.0);
    CHECK(dualrt::Event::elapsed_ms(last, second_first) >= 0.0);
    CHECK(dualrt::Event::elapsed_ms(second_first, second_last) >= 0.0);
    CHECK(read(queue, buffer) == std::vector<float>(1024, 2.0f));
}

TEST_CASE("timed spans: points taken inside a span order another queue's work") {
    const auto& device = test::device();
    auto producer = device.create_queue();
    auto consumer = device.create_queue();
    const std::size_t n = std::size_t{1} << 20;
    auto source = device.alloc<std::uint32_t>(n);
    auto target = device.alloc<std::uint32_t>(n);
    test::Random rnd;
    for (int round = 0; round < 4; ++round) {
        const auto value = rnd.bits<std::uint32_t>();
        const dualrt::Event first = begin_span(producer);
        producer.fill(source, value);
        const dualrt::Event filled = producer.mark();  // the fill's own point, inside the span
        const dualrt::Event last = end_span(producer);
        consumer.wait(filled);
        consumer.copy(target, source);
        std::vector<std::uint32_t> host(n, ~value);
        consumer.copy(host, target, dualrt::Sync::blocking);
        INFO("round " << round);
        CHECK(host == std::vector<std::uint32_t>(n, value));
        CHECK(dualrt::Event::elapsed_ms(first, last) >= 0.0);
        consumer.finish();
    }
}

TEST_CASE("timed spans: finish() closes a span left open, and the queue works on") {
    const auto& device = test::device();
    auto queue = device.create_queue();
    auto buffer = device.alloc<float>(4096);
    const dualrt::Event abandoned = begin_span(queue);
    queue.fill(buffer, 3.0f);
    queue.finish();
    queue.fill(buffer, 4.0f);
    const dualrt::Event first = begin_span(queue);
    queue.fill(buffer, 5.0f);
    const dualrt::Event last = end_span(queue);
    CHECK(read(queue, buffer) == std::vector<float>(4096, 5.0f));
    CHECK(dualrt::Event::elapsed_ms(first, last) >= 0.0);
    // The abandoned span's start still reads its first command (the fill of 3.0), before the
    // later span's.
    CHECK(dualrt::Event::elapsed_ms(abandoned, first) >= 0.0);
}
