// Several host threads drive the device at once: each with its own queue, and all through one
// shared queue. Every thread's results are checked (on the main thread: doctest's assertions
// are reported from there).
#include "support.hpp"

#include <exception>
#include <string>
#include <thread>

namespace {

constexpr int thread_count = 4;
constexpr int rounds = 10;

// Runs `rounds` copy + saxpy + copy jobs on `queue` (a fresh random job each round) and returns
// "" or the first failure.
std::string saxpy_rounds(dualrt::Queue queue, std::uint32_t seed) {
    try {
        std::mt19937 engine(seed);
        for (int round = 0; round < rounds; ++round) {
            const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 50000)(engine);
            auto failure = test::run_saxpy(queue, n, engine);
            if (!failure.empty()) return "round " + std::to_string(round) + ": " + failure;
        }
        return {};
    } catch (const std::exception& e) {
        return std::string("exception: ") + e.what();
    }
}

void run_threads(bool shared_queue) {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto shared = test::device().create_queue();
    std::string results[thread_count];
    std::thread threads[thread_count];
    for (int t = 0; t < thread_count; ++t) {
        auto queue = shared_queue ? shared : test::device().create_queue();
        const auto seed = static_cast<std::uint32_t>(rnd.engine());
        threads[t] = std::thread(
            [&results, t, queue, seed] { results[t] = saxpy_rounds(queue, seed); });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < thread_count; ++t) {
        CAPTURE(t);
        CHECK(results[t] == "");
    }
}

}  // namespace

TEST_CASE("threads: four threads, each with its own queue") { run_threads(false); }

TEST_CASE("threads: four threads enqueueing on one shared queue") { run_threads(true); }
