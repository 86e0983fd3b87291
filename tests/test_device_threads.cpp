// The threads a Pipeline over several devices keeps between runs (DeviceThreads): every device's
// job once per run, device 0's on the calling thread, each other's on a thread of its own that
// stays the same from run to run, and run_each returns only once every job has.
#include "multi/device_threads.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <ostream>
#include <set>
#include <thread>
#include <vector>

using dualrt::detail::DeviceThreads;

TEST_CASE("device threads: each device's job once per run, on threads kept between runs") {
    constexpr std::size_t devices = 4;
    constexpr int runs = 200;
    DeviceThreads threads(devices);
    std::vector<std::thread::id> first_ids(devices);
    for (int run = 0; run < runs; ++run) {
        std::vector<std::atomic<int>> calls(devices);
        std::vector<std::thread::id> ids(devices);
        std::atomic<int> finished{0};
        threads.run_each([&](std::size_t d) {
            ids[d] = std::this_thread::get_id();
            ++calls[d];
            // The others finish after the calling thread's job: run_each must wait for them.
            if (d > 0 && run % 10 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
            ++finished;
        });
        CHECK(finished == int(devices));
        for (std::size_t d = 0; d < devices; ++d) CHECK(calls[d] == 1);
        CHECK(ids[0] == std::this_thread::get_id());
        CHECK(std::set<std::thread::id>(ids.begin(), ids.end()).size() == devices);
        if (run == 0) first_ids = ids;
        CHECK((ids == first_ids));
    }
}

TEST_CASE("device threads: one device runs on the calling thread alone") {
    DeviceThreads threads(1);
    std::thread::id where;
    int calls = 0;
    threads.run_each([&](std::size_t d) {
        CHECK(d == 0);
        where = std::this_thread::get_id();
        ++calls;
    });
    CHECK(calls == 1);
    CHECK(where == std::this_thread::get_id());
}
