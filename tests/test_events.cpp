// Events: completion, device timing, record(), and ordering between two queues with
// Queue::wait(event).
#include "support.hpp"

#include <chrono>
#include <cmath>
#include <thread>

namespace {

std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

// busy's result for one start value, as the device computes it (fma rounds once).
float busy_reference(float v, std::uint32_t iterations) {
    for (std::uint32_t k = 0; k < iterations; ++k) v = std::fma(v, 0.9999f, 0.0001f);
    return v;
}

// A buffer of n elements cycling through a few random start values (so the host reference of a
// long busy run stays cheap), and busy's expected result for each element.
struct BusyInput {
    std::vector<float> data, expected;
    BusyInput(test::Random& rnd, std::size_t n, std::uint32_t iterations) : data(n), expected(n) {
        const auto starts = rnd.floats(16, 0.0f, 1.0f);
        std::vector<float> results(starts.size());
        for (std::size_t k = 0; k < starts.size(); ++k)
            results[k] = busy_reference(starts[k], iterations);
        for (std::size_t i = 0; i < n; ++i) {
            data[i] = starts[i % starts.size()];
            expected[i] = results[i % starts.size()];
        }
    }
};

}  // namespace

TEST_CASE("events: elapsed_ms around a kernel is positive and finite") {
    auto q = test::device().create_queue();
    const std::size_t n = 1 << 16;
    auto buffer = test::device().alloc<float>(n);
    q.fill(buffer, 0.5f);
    const auto start = q.record();
    const auto kernel = q.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n),
                                 u32(1000));
    const auto end = q.record();
    const double ms = dualrt::Event::elapsed_ms(start, end);
    CAPTURE(ms);
    CHECK(std::isfinite(ms));
    CHECK(ms > 0.0);
    // elapsed_ms waits for both events, so the kernel before `end` is done.
    CHECK(kernel.is_complete());
    CHECK(end.is_complete());
}

TEST_CASE("events: is_complete becomes true without wait(); wait() and copies agree") {
    auto q = test::device().create_queue();
    const std::size_t n = 1 << 14;
    auto buffer = test::device().alloc<float>(n);
    q.fill(buffer, 0.25f);
    const auto done = q.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n),
                               u32(500));
    // Polling alone must make progress (an OpenCL queue that is never flushed would hang here).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool complete = false;
    while (!(complete = done.is_complete()) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    CHECK_MESSAGE(complete, "the event did not complete within 60 s of polling");

    const dualrt::Event copy = done;  // copies share the same point
    copy.wait();
    CHECK(copy.is_complete());
    CHECK(done.native_handle() == copy.native_handle());
}

TEST_CASE("events: record() marks the end of the queue; finish() drains it") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto q = test::device().create_queue();
    q.record().wait();  // on an empty queue: completes at once

    const std::size_t n = 1 << 14;
    const std::uint32_t iterations = 300;
    const BusyInput input(rnd, n, iterations);
    auto buffer = test::device().alloc<float>(n);
    std::vector<float> out(n, test::poison_float());
    q.copy(buffer, input.data);
    const auto kernel = q.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n),
                                 iterations);
    const auto read = q.copy(out, buffer);
    q.record().wait();  // everything enqueued before the record is complete now
    CHECK(kernel.is_complete());
    CHECK(read.is_complete());
    CHECK(test::differences(out, input.expected) == "");

    const auto again = q.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n),
                                u32(1));
    q.finish();
    CHECK(again.is_complete());
}

TEST_CASE("events: a queue waiting on another queue's event sees its results") {
    // Queue A runs a long busy kernel on a buffer; queue B waits on A's event, then reads the
    // buffer. Without the wait B would read the values from before the kernel.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = 1 << 18;
    const std::uint32_t iterations = 2000;
    const BusyInput input(rnd, n, iterations);
    auto qa = test::device().create_queue();
    auto qb = test::device().create_queue();
    auto buffer = test::device().alloc<float>(n);
    qa.copy(buffer, input.data, dualrt::Sync::blocking);

    const auto kernel = qa.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n),
                                  iterations);
    dualrt::Event point = kernel;
    SUBCASE("waiting on the launch's event") {}
    SUBCASE("waiting on a recorded event") { point = qa.record(); }
    qb.wait(point);  // returns without blocking the host
    std::vector<float> out(n, test::poison_float());
    qb.copy(out, buffer).wait();
    CHECK(kernel.is_complete());
    CHECK(test::differences(out, input.expected) == "");
}

TEST_CASE("events: two queues ping-pong through events for many rounds") {
    // Each round, B fills `term` with the round number after A has consumed the previous one, and
    // A adds `term` to `sum` after B's fill. Any misordering changes the exact sum.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1000, 8000);
    const int rounds = 40;
    auto qa = test::device().create_queue();
    auto qb = test::device().create_queue();
    auto sum = test::device().alloc<float>(n);
    auto term = test::device().alloc<float>(n);
    const auto saxpy = test::device().kernel("saxpy");
    qa.fill(sum, 0.0f);
    dualrt::Event consumed = qa.record();
    for (int round = 1; round <= rounds; ++round) {
        qb.wait(consumed);
        qb.fill(term, static_cast<float>(round));
        qa.wait(qb.record());
        consumed = qa.launch(saxpy, n, dualrt::Range{}, u32(n), 1.0f, term, sum);
    }
    std::vector<float> out(n, test::poison_float());
    qa.copy(out, sum, dualrt::Sync::blocking);
    const float expected = static_cast<float>(rounds * (rounds + 1) / 2);  // exact in float
    CHECK(test::differences(out, std::vector<float>(n, expected)) == "");
}

TEST_CASE("events: elapsed_ms times only events from record()") {
    // Copies, fills and launches return untimed events (cheaper on CUDA; refused on both backends
    // alike); record() events are timing points.
    const std::size_t n = 1 << 12;
    auto q = test::device().create_queue();
    auto buffer = test::device().alloc<float>(n);
    std::vector<float> host(n, 0.5f);
    const auto copy = q.copy(buffer, host);
    const auto start = q.record();
    const auto launch = q.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n),
                                 u32(10));
    const auto end = q.record();
    using dualrt::Errc;
    using dualrt::Event;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Queue::record()", Event::elapsed_ms(copy, end));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Queue::record()", Event::elapsed_ms(start, launch));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Queue::record()", Event::elapsed_ms(copy, launch));

    const double ms = Event::elapsed_ms(start, end);
    CAPTURE(ms);
    CHECK(std::isfinite(ms));
    CHECK(ms >= 0.0);
    q.finish();
}
