#include "borrowed_cost.hpp"

#include "native_common.hpp"  // median, as the native baselines take it

#include <chrono>
#include <functional>

namespace dualrt::samples::vendor_blas {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
}

// Runs `measure(queue)` alternately on the two queues, `repetitions` times each after one
// warm-up each, and returns the two medians.
std::pair<double, double> alternate(Queue& own, Queue& borrowed, int repetitions,
                                    const std::function<double(Queue&)>& measure) {
    measure(own);
    measure(borrowed);
    std::vector<double> on_own, on_borrowed;
    for (int r = 0; r < repetitions; ++r) {
        on_own.push_back(measure(own));
        on_borrowed.push_back(measure(borrowed));
    }
    return {bench::detail::median(std::move(on_own)),
            bench::detail::median(std::move(on_borrowed))};
}

}  // namespace

double CostRow::slowdown() const {
    if (own <= 0.0 || borrowed <= 0.0) return 0.0;
    return unit == "GB/s" ? own / borrowed : borrowed / own;
}

std::vector<CostRow> measure_borrowed_cost(const Device& device, int launches, int repetitions,
                                           std::size_t large_bytes) {
    Queue own = device.create_queue();
    const Queue owner = device.create_queue();  // owns the native queue the borrowed one wraps
    Queue borrowed = wrap_queue(device, ForeignHandle{device.backend(), owner.native_handle()},
                                Ownership::borrow);
    const Kernel empty = device.kernel("empty");  // built here, outside the timing
    const Range one(1);
    std::vector<CostRow> rows;
    const auto add = [&](const char* measure, const char* unit, std::pair<double, double> pair) {
        rows.push_back(CostRow{measure, unit, pair.first, pair.second});
    };

    add("launch enqueue (events discarded)", "us",
        alternate(own, borrowed, repetitions, [&](Queue& queue) {
            const auto begin = Clock::now();
            for (int i = 0; i < launches; ++i) queue.launch(empty, one, one, 0u);
            const auto end = Clock::now();
            queue.finish();
            return microseconds(end - begin) / launches;
        }));
    // Round trips are short: many per repetition, their median.
    const int trips = std::max(1, std::min(launches, 1000));
    const auto round_trips = [&](const std::function<Event(Queue&)>& work) {
        return [&, work](Queue& queue) {
            std::vector<double> times;
            for (int i = 0; i < trips; ++i) {
                const auto begin = Clock::now();
                work(queue).wait();
                times.push_back(microseconds(Clock::now() - begin));
            }
            return bench::detail::median(std::move(times));
        };
    };
    add("launch + wait", "us", alternate(own, borrowed, repetitions, round_trips([&](Queue& q) {
                                             return q.launch(empty, one, one, 0u);
                                         })));
    auto small_host = device.alloc_host<float>(1024);
    auto small = device.alloc<float>(1024);
    add("4 KiB pinned copy + wait", "us",
        alternate(own, borrowed, repetitions,
                  round_trips([&](Queue& q) { return q.copy(small, small_host); })));
    const std::size_t count = large_bytes / sizeof(float);
    auto large_host = device.alloc_host<float>(count);
    auto large = device.alloc<float>(count);
    add("pinned host-to-device copy", "GB/s",
        alternate(own, borrowed, repetitions, [&](Queue& queue) {
            const auto begin = Clock::now();
            queue.copy(large, large_host, Sync::blocking);
            const double seconds = std::chrono::duration<double>(Clock::now() - begin).count();
            return static_cast<double>(count * sizeof(float)) / seconds / 1e9;
        }));
    return rows;
}

}  // namespace dualrt::samples::vendor_blas
