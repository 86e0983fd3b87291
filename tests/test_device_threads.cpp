// The threads a Pipeline over several devices keeps between runs (DeviceThreads): every device's
// job once per run, device 0's on the calling thread, each other's on a thread of its own that
// stays the same from run to run, and run_each returns only once every job has; and the same
// seen from a Pipeline's compute function, on in-process counting devices.
#include "multi/device_threads.hpp"
#include "pipeline_counting_backend.hpp"
#include "support.hpp"

#include <dualrt/dualrt.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <numeric>
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

namespace {

// A number for the calling thread, new for every thread ever made (a finished thread's
// std::thread::id may be given to the next one).
int thread_number() {
    static std::atomic<int> threads{0};
    thread_local const int number = ++threads;
    return number;
}

}  // namespace

TEST_CASE("device threads: over several devices, each device's chunks come from the same thread "
          "run after run, the first device's from the caller's") {
    std::vector<std::shared_ptr<test::counting::Device>> impls;
    std::vector<dualrt::Device> devices;
    for (int d = 0; d < 3; ++d) {
        impls.push_back(std::make_shared<test::counting::Device>());
        devices.emplace_back(impls.back());
    }
    dualrt::Pipeline pipeline(devices);
    const std::size_t n = std::size_t{4} << 20;
    std::vector<float> in(n), out(n);
    std::iota(in.begin(), in.end(), 1.0f);
    std::vector<int> first_threads(devices.size(), 0);  // 0: not seen yet
    int dealt_runs = 0;
    for (int run = 0; run < 12; ++run) {
        CAPTURE(run);
        std::mutex mutex;
        std::vector<std::set<int>> threads(devices.size());
        std::fill(out.begin(), out.end(), std::nanf(""));
        const auto report = pipeline.run(
            dualrt::inputs(dualrt::HostArray<const float>(in.data(), n, true)),
            dualrt::outputs(dualrt::HostArray<float>(out.data(), n, true)), [&](auto& chunk) {
                {
                    std::lock_guard<std::mutex> lock(mutex);
                    threads[chunk.device_index].insert(thread_number());
                }
                chunk.queue.copy(std::get<0>(chunk.outputs), std::get<0>(chunk.inputs));
            });
        CHECK(out == in);
        if (!test::contains(report.chunking, "dealt to 3 devices")) continue;
        ++dealt_runs;
        for (std::size_t d = 0; d < devices.size(); ++d) {
            CAPTURE(d);
            if (threads[d].empty()) continue;  // it took no chunk this run
            REQUIRE(threads[d].size() == 1);
            const int number = *threads[d].begin();
            if (d == 0) {
                CHECK(number == thread_number());
                continue;
            }
            CHECK(number != thread_number());
            if (first_threads[d] == 0) first_threads[d] = number;
            CHECK(number == first_threads[d]);
        }
    }
    CHECK(dealt_runs >= 2);
}
