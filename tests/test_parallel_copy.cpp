// The host copy behind staged copies: streaming stores and the worker pool give memcpy's result
// at every size and alignment, also from several threads at once and in long streams of jobs.
#include "support/parallel_copy.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

using dualrt::detail::PinnedSide;

namespace {

std::vector<unsigned char> random_bytes(std::size_t n, std::mt19937& engine) {
    std::vector<unsigned char> out(n);
    std::uniform_int_distribution<int> byte(0, 255);
    for (auto& b : out) b = static_cast<unsigned char>(byte(engine));
    return out;
}

// Copies `n` bytes from offset `from` to offset `to` with `copy`; true when exactly those bytes
// changed, to the source's values.
template <typename Copy>
bool copies_exactly(Copy&& copy, std::size_t n, std::size_t from, std::size_t to,
                    std::mt19937& engine) {
    const auto source = random_bytes(n + from, engine);
    std::vector<unsigned char> target(n + to + 64, 0xA5);
    copy(target.data() + to, source.data() + from, n);
    for (std::size_t i = 0; i < to; ++i)
        if (target[i] != 0xA5) return false;
    for (std::size_t i = 0; i < n; ++i)
        if (target[to + i] != source[from + i]) return false;
    for (std::size_t i = to + n; i < target.size(); ++i)
        if (target[i] != 0xA5) return false;
    return true;
}

}  // namespace

TEST_CASE("parallel copy: streaming stores copy every size and alignment exactly") {
    const auto seed = std::random_device{}();
    INFO("seed " << seed);
    std::mt19937 engine(seed);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{127}, std::size_t{65535},
                          std::size_t{65536}, std::size_t{65536 + 129}, std::size_t{1} << 20})
        for (std::size_t from : {0, 1, 31, 64})
            for (std::size_t to : {0, 3, 32, 63}) {
                CAPTURE(n);
                CAPTURE(from);
                CAPTURE(to);
                CHECK(copies_exactly(dualrt::detail::stream_copy, n, from, to, engine));
            }
}

namespace {

// Copies from `threads` threads at once, `rounds` each (round i: `bytes` + i bytes from source
// offset i to destination offset `to`), each thread through `copier_of(t)` and checking its own
// copies. Returns the failures of each thread.
template <typename CopierOf>
std::vector<int> failures_from_threads(int threads, int rounds, std::size_t bytes, std::size_t to,
                                       unsigned seed, CopierOf&& copier_of) {
    std::vector<std::thread> callers;
    std::vector<int> failures(static_cast<std::size_t>(threads), 0);
    for (int t = 0; t < threads; ++t)
        callers.emplace_back([&, t] {
            auto& copier = copier_of(t);
            // Uploads and downloads alternate, so jobs of different widths follow each other.
            bool upload = false;
            const auto pooled = [&](void* d, const void* s, std::size_t n) {
                upload = !upload;
                copier.copy(d, s, n, upload ? PinnedSide::into : PinnedSide::out_of);
            };
            std::mt19937 mine(seed + static_cast<unsigned>(t));
            for (int i = 0; i < rounds; ++i)
                if (!copies_exactly(pooled, bytes + static_cast<std::size_t>(i),
                                    static_cast<std::size_t>(i), to, mine))
                    ++failures[static_cast<std::size_t>(t)];
        });
    for (auto& caller : callers) caller.join();
    return failures;
}

}  // namespace

TEST_CASE("parallel copy: the pool splits large copies and serves several callers") {
    const auto seed = std::random_device{}();
    INFO("seed " << seed);
    dualrt::detail::ParallelCopier copier(4);
    CHECK(copier.threads() == 4);
    std::mt19937 engine(seed);
    for (const PinnedSide side : {PinnedSide::into, PinnedSide::out_of}) {
        const auto pooled = [&](void* d, const void* s, std::size_t n) {
            copier.copy(d, s, n, side);
        };
        // One piece; two, the other threads left asleep; every thread.
        for (std::size_t n : {std::size_t{1000}, std::size_t{256} << 10, std::size_t{3} << 20,
                              (std::size_t{5} << 20) + 77})
            CHECK(copies_exactly(pooled, n, 5, 7, engine));
    }
    // A stream of jobs from four threads at once, each checking its own copies.
    CHECK(failures_from_threads(4, 20, std::size_t{1} << 20, 0, seed,
                                [&](int) -> dualrt::detail::ParallelCopier& { return copier; }) ==
          std::vector<int>(4, 0));
}

// Workers spin for a while after a job, then sleep: copies spaced wider than that spin find them
// asleep and must wake them, and copies in quick succession find them spinning.
TEST_CASE("parallel copy: copies after the workers have gone to sleep, and in quick succession") {
    const auto seed = std::random_device{}();
    INFO("seed " << seed);
    std::mt19937 engine(seed);
    dualrt::detail::ParallelCopier copier(4);
    const auto pooled = [&](void* d, const void* s, std::size_t n) {
        copier.copy(d, s, n, PinnedSide::into);
    };
    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        CHECK(copies_exactly(pooled, std::size_t{3} << 20, 0, 0, engine));
        CHECK(copies_exactly(pooled, std::size_t{1} << 20, 1, 3, engine));
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the workers' spin
    }
}

TEST_CASE("parallel copy: a started copy runs while its caller works, and is whole once finished") {
    const auto seed = std::random_device{}();
    INFO("seed " << seed);
    std::mt19937 engine(seed);
    dualrt::detail::ParallelCopier copier(4);
    for (std::size_t n : {std::size_t{1000}, std::size_t{3} << 20, (std::size_t{5} << 20) + 77}) {
        CAPTURE(n);
        // Finished explicitly, after the caller has done work of its own meanwhile.
        CHECK(copies_exactly(
            [&](void* d, const void* s, std::size_t bytes) {
                dualrt::detail::PendingCopy pending = copier.start(d, s, bytes, PinnedSide::into);
                volatile unsigned sum = 0;
                for (unsigned i = 0; i < 100000; ++i) sum = sum + i;
                pending.finish();
                pending.finish();  // a second finish does nothing
            },
            n, 3, 5, engine));
        // Finished by the destructor, after a move.
        CHECK(copies_exactly(
            [&](void* d, const void* s, std::size_t bytes) {
                dualrt::detail::PendingCopy moved;
                {
                    dualrt::detail::PendingCopy pending =
                        copier.start(d, s, bytes, PinnedSide::out_of);
                    moved = std::move(pending);
                }
            },
            n, 0, 64, engine));
    }
    // The copier takes the next job once the pending one is finished.
    CHECK(copies_exactly([&](void* d, const void* s,
                             std::size_t bytes) { copier.copy(d, s, bytes, PinnedSide::into); },
                         std::size_t{2} << 20, 1, 1, engine));
}

TEST_CASE("parallel copy: downloads take half the threads unless the user chose the count") {
    dualrt::detail::ParallelCopier chosen_by_default(5);
    CHECK(chosen_by_default.threads(PinnedSide::into) == 5);
    CHECK(chosen_by_default.threads(PinnedSide::out_of) == 3);
    dualrt::detail::ParallelCopier chosen_by_user(5, true);
    CHECK(chosen_by_user.threads(PinnedSide::into) == 5);
    CHECK(chosen_by_user.threads(PinnedSide::out_of) == 5);
    dualrt::detail::ParallelCopier alone(1);
    CHECK(alone.threads(PinnedSide::out_of) == 1);
}

TEST_CASE("parallel copy: each owner has a copier of its own, and they copy side by side") {
    const auto seed = std::random_device{}();
    INFO("seed " << seed);
    const int first_owner = 0, second_owner = 0;  // their addresses name two devices
    auto& first = dualrt::detail::ParallelCopier::of(&first_owner);
    auto& second = dualrt::detail::ParallelCopier::of(&second_owner);
    CHECK(&first == &dualrt::detail::ParallelCopier::of(&first_owner));
    CHECK(&first != &second);
    CHECK(first.threads() == second.threads());
    CHECK(failures_from_threads(2, 10, std::size_t{2} << 20, 3, seed,
                                [&](int t) -> dualrt::detail::ParallelCopier& {
                                    return t == 0 ? first : second;
                                }) == std::vector<int>(2, 0));
}
