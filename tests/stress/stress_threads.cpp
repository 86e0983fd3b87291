// Eight host threads drive one device for a bounded time (DUALRT_STRESS_SECONDS), each with its
// own queue and all of them through one shared queue, ordering work across the two with
// Queue::wait(event). They mix copies of random sizes (small, odd, and >= 1 MiB so that pageable
// copies go through the pinned staging pool), fills, built-in kernels, pinned HostBuffer copies
// and timed events, and hand device work over between threads: one thread's last event and
// buffer are waited on and read by another. Every result is checked against a CPU reference on
// fresh random data, with outputs poisoned first. doctest's assertions are made on the main
// thread after the join: a thread records its first failure (a mismatch or any exception) and
// stops everyone.
#include "stress.hpp"

#include <array>
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

constexpr std::size_t thread_count = 8;

enum Kind : std::size_t {
    round_trip, fill_saxpy, pinned_saxpy, timed_busy, reverse, hand_over, kinds
};
constexpr std::array<const char*, kinds> kind_names{
    "copy round trips", "fill+saxpy", "pinned saxpy", "timed busy", "group_reverse",
    "hand-overs"};

// Work one thread enqueued and did not wait for: `done` completes when `buffer` holds `value`.
struct Handoff {
    dualrt::Event done;
    dualrt::Buffer<float> buffer;
    float value = 0.0f;
};

// Where threads leave a Handoff for whichever thread comes next.
class Mailbox {
public:
    Handoff swap(Handoff item) {
        std::lock_guard<std::mutex> lock(mutex_);
        std::swap(item, item_);
        return item;
    }

private:
    std::mutex mutex_;
    Handoff item_;
};

struct Tally {
    std::array<std::size_t, kinds> ops{};
    std::size_t staged_copies = 0;  // round trips of >= 1 MiB (the pool's threshold)
    std::size_t bytes = 0;          // bytes the checked results held
    std::string failure;            // "" while all is well
};

// A byte count for a copy: a third small (under 64 KiB, rarely a multiple of 4 KiB), a third
// medium, a third from 1 MiB to 3 MiB, which pageable copies stage through pinned buffers.
std::size_t copy_bytes(std::mt19937& rng) {
    switch (stress::uniform(rng, 0, 2)) {
    case 0: return stress::uniform(rng, 1, 64u << 10);
    case 1: return stress::uniform(rng, 64u << 10, (1u << 20) - 1);
    default: return stress::uniform(rng, 1u << 20, 3u << 20);
    }
}

// One thread's view of the device: its own queue, the shared one, and the kernels.
struct Worker {
    dualrt::Device device;
    dualrt::Queue own, shared;
    dualrt::Kernel saxpy, fill, busy, group_reverse;
    Mailbox* mailbox;
    std::mt19937 rng;

    dualrt::Queue& pick() { return stress::chance(rng, 0.5) ? own : shared; }
    // The handle fetched before the threads started, or now by name: lookups from eight threads
    // at once, and launches through handles of one kernel made at different times.
    dualrt::Kernel get(const dualrt::Kernel& held) {
        return stress::chance(rng, 0.5) ? held : device.kernel(held.name());
    }

    // host -> device (queue a) -> device (queue b, after a's copy) -> host, through a view at a
    // random offset of a larger buffer filled with a guard byte: read back either the view, or
    // the whole buffer to see that the bytes around the view kept the guard.
    std::string copy_round_trip(std::string& what, Tally& tally) {
        const std::size_t n = copy_bytes(rng);
        auto& a = pick();
        auto& b = pick();
        const std::size_t offset = stress::uniform(rng, 0, 4096);
        const std::size_t total = n + offset + stress::uniform(rng, 0, 100);
        const bool whole = stress::chance(rng, 0.5);
        what = "round trip of " + std::to_string(n) + " bytes at offset " +
               std::to_string(offset) + " of " + std::to_string(total) +
               (whole ? ", read whole" : ", read as a view");
        const auto data = stress::bytes(rng, n);
        const auto guard = static_cast<unsigned char>(rng());
        auto first = device.alloc<unsigned char>(n);
        auto second = device.alloc<unsigned char>(total);
        // Expected contents, and the poisoned host side: every byte differs from its expectation.
        std::vector<unsigned char> expected(whole ? total : n, guard);
        std::copy(data.begin(), data.end(), expected.begin() + (whole ? offset : 0));
        std::vector<unsigned char> back(expected.size());
        for (std::size_t i = 0; i < back.size(); ++i)
            back[i] = static_cast<unsigned char>(~expected[i]);
        const stress::DrainOnThrow drain(a, b);
        const auto uploaded = a.copy(first, data);
        b.fill(second, guard);
        b.wait(uploaded);
        b.copy(second.view(offset, n), first);
        const auto source = whole ? second : second.view(offset, n);
        if (stress::chance(rng, 0.5))
            b.copy(back, source, dualrt::Sync::blocking);
        else
            b.copy(back, source).wait();
        if (n >= (1u << 20)) ++tally.staged_copies;
        tally.bytes += back.size();
        return test::differences(back, expected);
    }

    // y filled with c (Queue::fill or the fill kernel) on queue a; y = a*x + y on queue b once
    // a's work is done.
    std::string fill_then_saxpy(std::string& what, Tally& tally) {
        const std::size_t n = stress::uniform(rng, 1, 300000);
        const bool by_kernel = stress::chance(rng, 0.5);
        what = "fill (" + std::string(by_kernel ? "kernel" : "Queue::fill") + ") + saxpy of " +
               std::to_string(n) + " floats";
        const auto x = stress::floats(rng, n);
        const float alpha = stress::uniform_float(rng, -2.0f, 2.0f);
        const float c = stress::uniform_float(rng, -1.0f, 1.0f);
        auto dx = device.alloc<float>(n);
        auto dy = device.alloc<float>(n);
        auto& a = pick();
        auto& b = pick();
        const stress::DrainOnThrow drain(a, b);
        a.copy(dx, x);
        if (by_kernel)
            a.launch(get(fill), {n}, {}, dy, c, stress::u32(n));
        else
            a.fill(dy, c);
        b.wait(stress::chance(rng, 0.5) ? a.record() : a.launch(fill, {1}, {}, dy, c, 0u));
        b.launch(get(saxpy), {n}, {}, stress::u32(n), alpha, dx, dy);
        std::vector<float> out(n, test::poison_float());
        b.copy(out, dy, dualrt::Sync::blocking);
        tally.bytes += n * sizeof(float);
        return stress::saxpy_check(out.data(), alpha, x, c);
    }

    // The same through pinned HostBuffers, DMA both ways, waiting on the download's event.
    std::string saxpy_pinned(std::string& what, Tally& tally) {
        const std::size_t n = stress::uniform(rng, 1, 400000);
        what = "pinned saxpy of " + std::to_string(n) + " floats";
        auto& q = pick();
        auto hx = device.alloc_host<float>(n);
        auto hy = device.alloc_host<float>(n);
        const auto x = stress::floats(rng, n);
        const float alpha = stress::uniform_float(rng, -2.0f, 2.0f);
        const float c = stress::uniform_float(rng, -1.0f, 1.0f);
        std::copy(x.begin(), x.end(), hx.begin());
        std::fill(hy.begin(), hy.end(), c);
        auto dx = device.alloc<float>(n);
        auto dy = device.alloc<float>(n);
        const stress::DrainOnThrow drain(q, q);
        q.copy(dx, hx);
        q.copy(dy, hy).wait();  // hy is reused as the output below
        std::fill(hy.begin(), hy.end(), test::poison_float());
        q.launch(get(saxpy), {n}, {}, stress::u32(n), alpha, dx, dy);
        q.copy(hy, dy).wait();
        tally.bytes += n * sizeof(float);
        return stress::saxpy_check(hy.data(), alpha, x, c);
    }

    // busy between two recorded events, the first on queue a, the second on queue q after it
    // (q waits for the first): their elapsed time must be a finite, non-negative duration (on
    // the shared queue it may include other threads' work).
    std::string timed(std::string& what, Tally& tally) {
        const std::size_t n = stress::uniform(rng, 1, 100000);
        const auto iterations = stress::u32(stress::uniform(rng, 1, 16));
        auto& a = pick();
        auto& q = pick();
        what = "timed busy of " + std::to_string(n) + " floats x " + std::to_string(iterations) +
               (&a == &q ? " on one queue" : " across two queues");
        const auto x = stress::floats(rng, n, 0.0f, 1.0f);
        auto data = device.alloc<float>(n);
        const stress::DrainOnThrow drain(a, q);
        a.copy(data, x);
        const auto start = a.record();
        q.wait(start);  // so `end`, on q, comes after `start` even when the queues differ
        q.launch(get(busy), {n}, {}, data, stress::u32(n), iterations);
        const auto end = q.record();
        const double ms = dualrt::Event::elapsed_ms(start, end);
        if (!std::isfinite(ms) || ms < 0.0) return "elapsed_ms is " + test::show(ms);
        std::vector<float> out(n, test::poison_float()), expected(n);
        q.copy(out, data, dualrt::Sync::blocking);
        for (std::size_t i = 0; i < n; ++i) expected[i] = stress::busy_reference(x[i], iterations);
        tally.bytes += n * sizeof(float);
        return test::differences(out, expected);
    }

    // group_reverse (local memory) in work-groups of 32, 64 or 128.
    std::string reverse_groups(std::string& what, Tally& tally) {
        const std::size_t n = stress::uniform(rng, 1, 200000);
        const std::size_t group = std::min<std::size_t>(
            std::size_t{32} << stress::uniform(rng, 0, 2), device.info().max_work_group_size);
        what = "group_reverse of " + std::to_string(n) + " floats in groups of " +
               std::to_string(group);
        auto& q = pick();
        const auto x = stress::floats(rng, n);
        auto data = device.alloc<float>(n);
        const stress::DrainOnThrow drain(q, q);
        q.copy(data, x);
        q.launch(get(group_reverse), {n}, {group}, data,
                 dualrt::local_bytes(group * sizeof(float)), stress::u32(n));
        std::vector<float> out(n, test::poison_float());
        q.copy(out, data, dualrt::Sync::blocking);
        tally.bytes += n * sizeof(float);
        return test::differences(out, stress::group_reverse_reference(x, group));
    }

    // Leaves a filled buffer behind its still-running event (a busy kernel runs first, so it is
    // unlikely to be done), and checks the one another thread left: after waiting for its event
    // on one of this thread's queues, on the host, or by polling, the buffer must hold the value.
    std::string hand_over(std::string& what, Tally& tally) {
        const std::size_t n = stress::uniform(rng, 1, 100000);
        Handoff mine{{}, device.alloc<float>(n), stress::uniform_float(rng, -1.0f, 1.0f)};
        auto& q = pick();
        q.fill(mine.buffer, -mine.value);
        q.launch(get(busy), {n}, {}, mine.buffer, stress::u32(n),
                 stress::u32(stress::uniform(rng, 1, 64)));
        mine.done = q.launch(get(fill), {n}, {}, mine.buffer, mine.value, stress::u32(n));
        const Handoff theirs = mailbox->swap(std::move(mine));
        if (!theirs.done.valid()) return {};  // the first one: nothing to check yet
        const std::size_t how = stress::uniform(rng, 0, 2);
        what = "hand-over of " + std::to_string(theirs.buffer.size()) + " floats, waited for " +
               (how == 0 ? "by a queue" : how == 1 ? "on the host" : "by polling");
        auto& r = pick();
        if (how == 0) {
            r.wait(theirs.done);
        } else if (how == 1) {
            theirs.done.wait();
        } else {
            while (!theirs.done.is_complete()) std::this_thread::yield();
        }
        std::vector<float> out(theirs.buffer.size(), test::poison_float());
        r.copy(out, theirs.buffer, dualrt::Sync::blocking);
        tally.bytes += out.size() * sizeof(float);
        return test::differences(out, std::vector<float>(out.size(), theirs.value));
    }
};

void work(Worker worker, std::size_t index, const stress::Deadline& deadline,
          std::atomic<bool>& stop, Tally& tally) {
    std::size_t op = 0;
    std::string what = "setting up";
    try {
        do {
            const auto kind = static_cast<Kind>(stress::uniform(worker.rng, 0, kinds - 1));
            std::string failure;
            switch (kind) {
            case round_trip: failure = worker.copy_round_trip(what, tally); break;
            case fill_saxpy: failure = worker.fill_then_saxpy(what, tally); break;
            case pinned_saxpy: failure = worker.saxpy_pinned(what, tally); break;
            case timed_busy: failure = worker.timed(what, tally); break;
            case reverse: failure = worker.reverse_groups(what, tally); break;
            default: failure = worker.hand_over(what, tally); break;
            }
            if (!failure.empty()) throw std::runtime_error(failure);
            ++tally.ops[kind];
            ++op;
        } while (!deadline.passed() && !stop.load());
    } catch (const std::exception& e) {
        tally.failure = "thread " + std::to_string(index) + ", operation " + std::to_string(op) +
                        " (" + what + "): " + e.what();
        stop.store(true);
    }
}

}  // namespace

TEST_CASE("stress: eight threads on own and shared queues, every result checked") {
    const auto& device = test::device();
    INFO("seed " << stress::seed() << " (DUALRT_STRESS_SEED replays it)");
    const stress::Stopwatch clock;
    const auto staging_before = device.staging_stats();
    // Built before the clock starts for the threads, so the first PoCL program build (hundreds
    // of milliseconds) does not eat the bounded time of one thread.
    const auto shared = device.create_queue();
    Mailbox mailbox;
    Worker prototype{device, {}, shared, device.kernel("saxpy"), device.kernel("fill"),
                     device.kernel("busy"), device.kernel("group_reverse"), &mailbox, {}};
    std::array<Tally, thread_count> tallies;
    std::array<std::thread, thread_count> threads;
    std::atomic<bool> stop{false};
    const stress::Deadline deadline(stress::seconds());
    for (std::size_t t = 0; t < thread_count; ++t) {
        Worker worker = prototype;
        worker.own = device.create_queue();
        worker.rng = stress::engine(static_cast<std::uint32_t>(100 + t));
        threads[t] = std::thread(work, std::move(worker), t, std::cref(deadline), std::ref(stop),
                                 std::ref(tallies[t]));
    }
    for (auto& thread : threads) thread.join();

    Tally total;
    std::size_t all = 0;
    for (std::size_t t = 0; t < thread_count; ++t) {
        CAPTURE(t);
        CHECK(tallies[t].failure == "");
        std::size_t ops = 0;
        for (std::size_t k = 0; k < kinds; ++k) ops += tallies[t].ops[k];
        for (std::size_t k = 0; k < kinds; ++k) total.ops[k] += tallies[t].ops[k];
        CHECK((ops >= 1 || !tallies[t].failure.empty()));  // each thread got to work
        all += ops;
        total.staged_copies += tallies[t].staged_copies;
        total.bytes += tallies[t].bytes;
    }
    std::string summary;
    for (std::size_t k = 0; k < kinds; ++k)
        summary += std::string(k ? ", " : "") + std::to_string(total.ops[k]) + " " + kind_names[k];
    MESSAGE(thread_count << " threads, " << all << " operations in " << clock.seconds()
                         << " s: " << summary << "; " << total.bytes / (1u << 20)
                         << " MiB of results checked");

    // The pool served the large pageable copies, and stayed under its cap with eight at once.
    const auto staging = device.staging_stats();
    if (staging.limit_bytes > 0 && total.staged_copies > 0)
        CHECK(staging.staged_copies > staging_before.staged_copies);
    CHECK(staging.pinned_bytes <= staging.limit_bytes);
}
