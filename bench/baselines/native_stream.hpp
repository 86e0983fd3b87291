// What the two-queue triad stream (NativeBaseline::stream_triad and the `stream` benchmark's dualrt
// side) shares: the cut into blocks, the launch geometry, the host reference and the check of c.
// Header-only, like native_common.hpp: each module carries its own copy.
#pragma once

#include "native_baseline.hpp"
#include "native_common.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace dualrt::bench::detail {

// Work-items per work-group of every triad launch, dualrt's and the baselines' alike, so that
// the two sides run the same kernel the same way (global is rounded up to it).
inline constexpr std::size_t triad_local_size = 256;

// Queues (CUDA streams) the blocks alternate between: block k runs on queue k % stream_queues.
inline constexpr std::size_t stream_queues = 2;

inline std::size_t block_count(const StreamJob& job) {
    return (job.elements + job.block_elements - 1) / job.block_elements;
}
inline std::size_t block_offset(const StreamJob& job, std::size_t block) {
    return block * job.block_elements;
}
// Elements in block `block`: block_elements, or fewer for the last one.
inline std::size_t block_size(const StreamJob& job, std::size_t block) {
    return std::min(job.block_elements, job.elements - block_offset(job, block));
}
inline std::size_t triad_global_size(std::size_t count) {
    return (count + triad_local_size - 1) / triad_local_size * triad_local_size;
}

// What the triad kernel computes: fma rounds once, as fma()/fmaf() do on the device, so the
// result matches bit for bit.
inline float triad_reference(float a, float b, float scale) { return std::fma(scale, b, a); }

// Every bit set: a NaN, which no triad of finite inputs gives, so an element a run did not write
// fails the check.
inline void poison(float* data, std::size_t count) {
    std::memset(data, 0xff, count * sizeof(float));
}

// The host-clock points of one run of a stream, and its device time from events.
struct StreamClocks {
    using Clock = std::chrono::steady_clock;
    Clock::time_point begin;       // before the start event is recorded
    Clock::time_point loop_begin;  // before the first block is enqueued
    Clock::time_point loop_end;    // after the last block is enqueued
    Clock::time_point end;         // after both queues have finished
};

inline StreamTiming stream_timing(const StreamClocks& clocks, double device_ms,
                                  std::size_t blocks) {
    using ms = std::chrono::duration<double, std::milli>;
    using us = std::chrono::duration<double, std::micro>;
    StreamTiming timing;
    timing.wall_ms = ms(clocks.end - clocks.begin).count();
    timing.device_ms = device_ms;
    timing.enqueue_us = us(clocks.loop_end - clocks.loop_begin).count() /
                        static_cast<double>(std::max<std::size_t>(blocks, 1));
    return timing;
}

// Where a run's clock starts: after the run's own preparation (poisoning c), so that streams
// run side by side meet here (StreamJob::before_each_run) and start together.
inline void start_together(const StreamJob& job) {
    if (job.before_each_run) job.before_each_run();
}

// One untimed warm-up run of `once` (a callable returning a StreamTiming), then
// `job.repetitions` timed ones; each figure is the median of its own column, and
// job.timed_wall_ms (where set) receives every timed run's wall time.
template <typename Once>
StreamTiming median_of_runs(const StreamJob& job, Once once) {
    once();  // first touches of memory and device buffers, lazy driver set-up
    std::vector<double> wall, device, enqueue;
    for (int r = 0; r < job.repetitions; ++r) {
        const StreamTiming timing = once();
        if (job.timed_wall_ms != nullptr) job.timed_wall_ms->push_back(timing.wall_ms);
        wall.push_back(timing.wall_ms);
        device.push_back(timing.device_ms);
        enqueue.push_back(timing.enqueue_us);
    }
    return {median(std::move(wall)), median(std::move(device)), median(std::move(enqueue))};
}

inline void check_stream_job(const std::string& backend, const StreamJob& job) {
    const std::string call = "NativeBaseline::stream_triad";
    if (job.a == nullptr || job.b == nullptr || job.c == nullptr)
        invalid_argument(backend, call, "a, b and c must not be null");
    if (job.elements == 0 || job.block_elements == 0)
        invalid_argument(backend, call, "elements and block_elements must be > 0");
    if (job.block_elements > std::numeric_limits<unsigned>::max())
        invalid_argument(backend, call, "the triad kernel counts a block's elements in a uint");
    if (job.repetitions < 1) invalid_argument(backend, call, "repetitions must be >= 1");
}

// "" when c equals the reference, else which element is wrong. `c_at(i)` reads element i of c,
// wherever the caller keeps it. With `every_element` false, only the first and last element of
// every block (where a wrong offset or a lost block shows) and about 4096 evenly spread ones are
// read: cheap enough for every timed run.
template <typename ElementOf>
std::string check_triad(const StreamJob& job, ElementOf c_at, bool every_element) {
    const auto wrong = [&](std::size_t i) -> std::string {
        const float expected = triad_reference(job.a[i], job.b[i], job.scale);
        const float actual = c_at(i);
        if (actual == expected) return {};
        return "c[" + std::to_string(i) + "] of " + std::to_string(job.elements) + " is " +
               std::to_string(actual) + ", expected " + std::to_string(expected) + " (block " +
               std::to_string(i / job.block_elements) + ")";
    };
    std::string problem;
    const auto look = [&](std::size_t i) {
        if (problem.empty()) problem = wrong(i);
    };
    if (every_element) {
        for (std::size_t i = 0; i < job.elements && problem.empty(); ++i) look(i);
        return problem;
    }
    for (std::size_t k = 0; k < block_count(job); ++k) {
        look(block_offset(job, k));
        look(block_offset(job, k) + block_size(job, k) - 1);
    }
    const std::size_t stride = std::max<std::size_t>(job.elements / 4096, 1);
    for (std::size_t i = 0; i < job.elements; i += stride) look(i);
    return problem;
}

}  // namespace dualrt::bench::detail
