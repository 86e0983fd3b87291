// Events: completion, device timing, record(), and ordering between two queues with
// Queue::wait(event). The backends make no native event for an enqueue until someone may need it
// (deferred events): the later cases keep events across many enqueues, threads and the end of
// their queue, and check that each still marks exactly the point after its own work.
#include "support.hpp"

#include <chrono>
#include <cmath>
#include <exception>
#include <string>
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

// Polls `event` until it completes, at most 60 s; true when it did. Nothing else is called.
bool completes_by_polling(const dualrt::Event& event) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!event.is_complete()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

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

TEST_CASE("events: queues without timing order work through their events and record(), and "
          "refuse to time them") {
    // QueueOptions::timing = false: no profiling on OpenCL, no timed CUevent on CUDA. Events and
    // record() still order work between queues and for the host; timing them is an error that
    // says what to change.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = 1 << 16;
    const std::uint32_t iterations = 500;
    const BusyInput input(rnd, n, iterations);
    const dualrt::QueueOptions untimed{false};
    auto qa = test::device().create_queue(untimed);
    auto qb = test::device().create_queue(untimed);
    auto timed = test::device().create_queue();
    auto buffer = test::device().alloc<float>(n);
    qa.copy(buffer, input.data);
    const auto kernel = qa.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer,
                                  u32(n), iterations);
    const dualrt::Event after = qa.record();
    qb.wait(after);
    std::vector<float> out(n, test::poison_float());
    qb.copy(out, buffer).wait();
    CHECK(kernel.is_complete());
    CHECK(after.is_complete());
    CHECK(test::differences(out, input.expected) == "");

    // A timed queue waits on an untimed one's point, and the reverse.
    auto other = test::device().alloc<float>(n);
    timed.wait(qb.record());
    timed.copy(other, buffer);
    qa.wait(timed.record());
    std::vector<float> again(n, test::poison_float());
    qa.copy(again, other, dualrt::Sync::blocking);
    CHECK(test::differences(again, input.expected) == "");

    using dualrt::Errc;
    using dualrt::Event;
    const Event start = qa.record(), end = qa.record();
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "QueueOptions::timing",
                       Event::elapsed_ms(start, end));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "QueueOptions::timing",
                       Event::elapsed_ms(timed.record(), end));
    // A queue with timing still times.
    const Event timed_start = timed.record();
    const Event timed_end = timed.record();
    CHECK(Event::elapsed_ms(timed_start, timed_end) >= 0.0);
}

TEST_CASE("events: mark() orders work for another queue and the host, and is never timed") {
    // mark() is the point to wait on: after this queue's work so far (a long kernel), before the
    // work enqueued after it; elapsed_ms refuses it, on a timed queue too.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1 << 14, 1 << 16);
    const std::uint32_t iterations = 500;
    const BusyInput input(rnd, n, iterations);
    auto qa = test::device().create_queue();
    auto qb = test::device().create_queue(dualrt::QueueOptions{false});
    auto buffer = test::device().alloc<float>(n);
    qa.copy(buffer, input.data);
    qa.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n), iterations);
    const dualrt::Event done = qa.mark();
    // Work after the mark overwrites the buffer: the other queue must read what came before.
    auto snapshot = test::device().alloc<float>(n);
    qb.wait(done);
    qb.copy(snapshot, buffer);
    const dualrt::Event copied = qb.mark();
    qa.wait(copied);
    qa.fill(buffer, test::poison_float());
    std::vector<float> out(n, test::poison_float());
    qb.copy(out, snapshot, dualrt::Sync::blocking);
    CHECK(done.is_complete());
    CHECK(test::differences(out, input.expected) == "");
    qa.finish();

    using dualrt::Errc;
    using dualrt::Event;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Queue::record()",
                       Event::elapsed_ms(qa.mark(), qa.record()));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "timing", Event::elapsed_ms(qb.mark(), qb.mark()));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Queue::mark", dualrt::Queue().mark());
}

TEST_CASE("events: an event kept from one launch marks that launch after many more enqueues") {
    // Launch k fills buffer k with its own value; the event of one launch in the middle is kept
    // while many more launches, fills and a long kernel follow. Waiting on it must return once
    // that launch is done, not later, not earlier: a second queue, not ordered with the first,
    // then reads the launch's value.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1, 5000);
    const std::size_t launches = 64;
    const std::size_t kept_index = rnd.size(0, launches - 1);
    CAPTURE(kept_index);
    auto q = test::device().create_queue();
    const auto fill = test::device().kernel("fill");
    std::vector<dualrt::Buffer<float>> buffers;
    for (std::size_t k = 0; k < launches; ++k) {
        buffers.push_back(test::device().alloc<float>(n));
        q.fill(buffers.back(), test::poison_float());
    }
    const auto value = [](std::size_t k) { return static_cast<float>(k) + 0.25f; };
    dualrt::Event kept;
    for (std::size_t k = 0; k < launches; ++k) {
        auto event = q.launch(fill, n, dualrt::Range{}, buffers[k], value(k), u32(n));
        if (k == kept_index) kept = event;
    }
    auto scratch = test::device().alloc<float>(n);
    for (int k = 0; k < 200; ++k) q.fill(scratch, static_cast<float>(k));
    // Work that is still running when `kept` is waited on, unless the wait waits too long.
    const std::size_t busy_n = 1 << 16;
    auto busy_buffer = test::device().alloc<float>(busy_n);
    q.fill(busy_buffer, 0.5f);
    q.launch(test::device().kernel("busy"), busy_n, dualrt::Range{}, busy_buffer, u32(busy_n),
             u32(2000));

    kept.wait();
    CHECK(kept.is_complete());
    auto reader = test::device().create_queue();
    std::vector<float> out(n, test::poison_float());
    reader.copy(out, buffers[kept_index], dualrt::Sync::blocking);
    CHECK(test::differences(out, std::vector<float>(n, value(kept_index))) == "");
    q.finish();
}

TEST_CASE("events: a queue waits on another queue's event that has no native event yet") {
    // Queue A runs a long kernel, then a saxpy whose event is kept; B waits on that event and
    // reads y. Without the wait B would read y from before the saxpy. Then A waits for B's read
    // and overwrites y with poison, which B's read must not see.
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1000, 1 << 16);
    const float a = rnd.uniform(-2.0f, 2.0f);
    const auto x = rnd.floats(n);
    const auto y = rnd.floats(n);
    auto qa = test::device().create_queue();
    auto qb = test::device().create_queue();
    auto dx = test::device().alloc<float>(n);
    auto dy = test::device().alloc<float>(n);
    const std::size_t busy_n = 1 << 16;
    auto busy_buffer = test::device().alloc<float>(busy_n);
    qa.copy(dx, x);
    qa.copy(dy, y);
    qa.fill(busy_buffer, 0.5f);
    qa.launch(test::device().kernel("busy"), busy_n, dualrt::Range{}, busy_buffer, u32(busy_n),
              u32(5000));
    const auto saxpy = qa.launch(test::device().kernel("saxpy"), n, dualrt::Range{}, u32(n), a, dx,
                                 dy);
    SUBCASE("the event is still the last of its queue") {}
    SUBCASE("the event's queue has gone on since") {
        auto scratch = test::device().alloc<float>(n);
        for (int k = 0; k < 50; ++k) qa.fill(scratch, static_cast<float>(k));
    }
    qb.wait(saxpy);
    std::vector<float> out(n, test::poison_float());
    qb.copy(out, dy);
    qa.wait(qb.record());
    qa.fill(dy, test::poison_float());
    qb.finish();
    CHECK(saxpy.is_complete());
    CHECK(test::saxpy_differences(out, a, x, y) == "");
    qa.finish();
}

TEST_CASE("events: an event outlives its Queue") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1000, 1 << 15);
    const float value = rnd.uniform(-1.0f, 1.0f);
    auto buffer = test::device().alloc<float>(n);
    dualrt::Event last, polled;
    {
        auto q = test::device().create_queue();
        q.fill(buffer, test::poison_float());
        q.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n), u32(2000));
        last = q.launch(test::device().kernel("fill"), n, dualrt::Range{}, buffer, value, u32(n));
    }
    {
        auto q = test::device().create_queue();
        auto scratch = test::device().alloc<float>(n);
        polled = q.launch(test::device().kernel("busy"), n, dualrt::Range{}, scratch, u32(n),
                          u32(500));
    }
    // Both queues are gone; their events still have no native event.
    last.wait();
    CHECK(last.is_complete());
    CHECK(last.native_handle() != 0);
    CHECK_MESSAGE(completes_by_polling(polled), "the event did not complete within 60 s");
    std::vector<float> out(n, test::poison_float());
    test::device().create_queue().copy(out, buffer, dualrt::Sync::blocking);
    CHECK(test::differences(out, std::vector<float>(n, value)) == "");
}

TEST_CASE("events: is_complete alone completes the event of each kind of enqueue") {
    // Each event is the last of its queue when polled: nothing but polling can push it out.
    const std::size_t n = 1 << 14;
    auto q = test::device().create_queue();
    auto buffer = test::device().alloc<float>(n);
    auto other = test::device().alloc<float>(n);
    std::vector<float> host(n, 0.5f);
    CHECK(completes_by_polling(q.fill(buffer, 0.25f)));
    CHECK(completes_by_polling(q.copy(buffer, host)));
    CHECK(completes_by_polling(q.copy(other, buffer)));
    CHECK(completes_by_polling(
        q.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n), u32(300))));
    CHECK(completes_by_polling(q.copy(host, buffer)));
    // Blocking calls return complete events, which other queues can still wait on.
    const auto blocking = q.copy(host, buffer, dualrt::Sync::blocking);
    CHECK(blocking.is_complete());
    CHECK(blocking.native_handle() != 0);
    auto other_queue = test::device().create_queue();
    other_queue.wait(blocking);
    other_queue.finish();
    // finish() leaves the events of the work it waited for complete.
    const auto launched =
        q.launch(test::device().kernel("busy"), n, dualrt::Range{}, buffer, u32(n), u32(10));
    q.finish();
    CHECK(launched.is_complete());
}

TEST_CASE("events: eight threads enqueue on one queue, keeping every tenth event") {
    // Each thread writes its own buffers, ten enqueues (fills and fill launches, alternately) per
    // buffer, and keeps the event of the last write into each buffer. After every fifth buffer it
    // waits on the events it kept and reads those buffers through a queue of its own, which is
    // not ordered with the shared one: each must hold the value of its last write. Checked on the
    // main thread.
    constexpr int thread_count = 8;
    constexpr int enqueues = 200;
    constexpr int per_buffer = 10;
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1, 4000);
    auto shared = test::device().create_queue();
    const auto fill = test::device().kernel("fill");
    const auto value = [](int thread, int enqueue) {
        return static_cast<float>(thread * 1000 + enqueue);
    };
    std::string results[thread_count];
    std::thread threads[thread_count];
    for (int t = 0; t < thread_count; ++t) {
        threads[t] = std::thread([&, t] {
            try {
                auto own = test::device().create_queue();
                std::vector<dualrt::Buffer<float>> buffers;
                std::vector<dualrt::Event> kept;
                std::size_t checked = 0;
                for (int j = 0; j < enqueues; ++j) {
                    if (j % per_buffer == 0) buffers.push_back(test::device().alloc<float>(n));
                    auto& target = buffers.back();
                    dualrt::Event event =
                        j % 2 == 0 ? shared.fill(target, value(t, j))
                                   : shared.launch(fill, n, dualrt::Range{}, target, value(t, j),
                                                   u32(n));
                    if (j % per_buffer != per_buffer - 1) continue;
                    kept.push_back(event);
                    if (kept.size() % 5 != 0 && j != enqueues - 1) continue;
                    for (; checked < kept.size(); ++checked) {
                        kept[checked].wait();
                        std::vector<float> out(n, test::poison_float());
                        own.copy(out, buffers[checked], dualrt::Sync::blocking);
                        const int last = static_cast<int>(checked) * per_buffer + per_buffer - 1;
                        const auto failure =
                            test::differences(out, std::vector<float>(n, value(t, last)));
                        if (!failure.empty()) {
                            results[t] = "buffer " + std::to_string(checked) + ": " + failure;
                            return;
                        }
                    }
                }
                for (const auto& event : kept) {
                    if (!event.is_complete()) {
                        results[t] = "a waited event is not complete";
                        return;
                    }
                }
            } catch (const std::exception& e) {
                results[t] = std::string("exception: ") + e.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    shared.finish();
    for (int t = 0; t < thread_count; ++t) {
        CAPTURE(t);
        CHECK(results[t] == "");
    }
}
