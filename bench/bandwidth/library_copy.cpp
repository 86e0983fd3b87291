#include "library_copy.hpp"

#include "native_common.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace dualrt::samples::bandwidth {
namespace {

using Clock = std::chrono::steady_clock;
using Bytes = Buffer<unsigned char>;

// One copy of `direction` timed, with Host a std::vector (the pageable path of Queue::copy) or a
// HostBuffer (the pinned one).
template <typename Host>
CopyTiming time_once(Queue& first, Queue& second, Direction direction, const Bytes& a,
                     const Bytes& b, Host& src, Host& dst) {
    const auto begin = Clock::now();
    const Event start = first.record();
    Event stop_second;
    switch (direction) {
    case Direction::h2d:
        first.copy(a, src);
        break;
    case Direction::d2h:
        first.copy(dst, a);
        break;
    case Direction::d2d:
        first.copy(b, a);
        break;
    case Direction::both:
        second.wait(start);
        first.copy(a, src);
        second.copy(dst, b);
        stop_second = second.record();
        break;
    }
    const Event stop_first = first.record();
    CopyTiming timing;
    timing.device_ms = Event::elapsed_ms(start, stop_first);  // waits for both events
    if (direction == Direction::both)
        timing.device_ms = std::max(timing.device_ms, Event::elapsed_ms(start, stop_second));
    timing.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
    return timing;
}

template <typename Host>
void check_round_trip(Queue& queue, const Bytes& a, const Bytes& b, Host& src, Host& dst,
                      std::size_t bytes, std::uint32_t seed) {
    bench::detail::fill_pattern(src.data(), bytes, seed);
    std::memset(dst.data(), 0, bytes);
    queue.copy(a, src);
    queue.copy(b, a);
    queue.copy(dst, b, Sync::blocking);
    const std::string difference = bench::detail::compare_bytes(src.data(), dst.data(), bytes);
    if (!difference.empty())
        bench::detail::wrong_result(to_string(queue.device().backend()),
                                    "dualrt host -> device -> device -> host round trip",
                                    difference);
}

template <typename Host>
CopyTiming measure_with(Queue& first, Queue& second, Direction direction, const Bytes& a,
                        const Bytes& b, Host& src, Host& dst, std::size_t bytes, int repetitions,
                        std::uint32_t seed) {
    check_round_trip(first, a, b, src, dst, bytes, seed);
    for (int i = 0; i < bench::detail::warmup_runs; ++i)
        time_once(first, second, direction, a, b, src, dst);
    std::vector<double> device, wall;
    for (int i = 0; i < repetitions; ++i) {
        const CopyTiming t = time_once(first, second, direction, a, b, src, dst);
        device.push_back(t.device_ms);
        wall.push_back(t.wall_ms);
    }
    return {bench::detail::median(std::move(device)), bench::detail::median(std::move(wall))};
}

}  // namespace

const char* to_string(Direction direction) {
    switch (direction) {
    case Direction::h2d: return "H2D";
    case Direction::d2h: return "D2H";
    case Direction::d2d: return "D2D";
    case Direction::both: return "H2D+D2H";
    }
    return "?";
}

const char* to_string(HostMemory host) {
    return host == HostMemory::pinned ? "pinned" : "pageable";
}

double bytes_moved(Direction direction, std::size_t bytes) {
    const bool twice = direction == Direction::both || direction == Direction::d2d;
    return static_cast<double>(bytes) * (twice ? 2.0 : 1.0);
}

double gb_per_s(Direction direction, std::size_t bytes, double ms) {
    return ms > 0.0 ? bytes_moved(direction, bytes) / (ms * 1e6) : 0.0;
}

LibraryCopies::LibraryCopies(Device device)
    : device_(std::move(device)), first_(device_.create_queue()), second_(device_.create_queue()) {}

CopyTiming LibraryCopies::measure(Direction direction, HostMemory host, std::size_t bytes,
                                  int repetitions) {
    const Bytes a = device_.alloc<unsigned char>(bytes);
    const Bytes b = device_.alloc<unsigned char>(bytes);
    const std::uint32_t seed = seed_++;
    if (host == HostMemory::pinned) {
        HostBuffer<unsigned char> src = device_.alloc_host<unsigned char>(bytes);
        HostBuffer<unsigned char> dst = device_.alloc_host<unsigned char>(bytes);
        return measure_with(first_, second_, direction, a, b, src, dst, bytes, repetitions, seed);
    }
    std::vector<unsigned char> src(bytes), dst(bytes);  // value-initialized: every page touched
    return measure_with(first_, second_, direction, a, b, src, dst, bytes, repetitions, seed);
}

}  // namespace dualrt::samples::bandwidth
