// The dualrt side of the bandwidth benchmark: the same copies the native baseline times, made with
// dualrt's Queue::copy and timed with Queue::record() events.
#pragma once

#include "native_baseline.hpp"

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <cstdint>

namespace dualrt::samples::bandwidth {

using bench::Direction;
using bench::HostMemory;

const char* to_string(Direction direction);
const char* to_string(HostMemory host);

// Bytes moved by one copy of `bytes`: both directions count for `both` (their sum) and for d2d
// (a read and a write).
double bytes_moved(Direction direction, std::size_t bytes);
// 10^9 bytes per second.
double gb_per_s(Direction direction, std::size_t bytes, double ms);

struct CopyTiming {
    double device_ms = 0.0;  // median, from the events around the copy (what the figure uses)
    double wall_ms = 0.0;    // median host time of enqueueing and waiting, as a cross-check
};

class LibraryCopies {
public:
    explicit LibraryCopies(Device device);

    // Median over `repetitions` timed copies after two warm-up ones. Pageable host memory is a
    // std::vector (value-initialized, so touched), copied with queue.copy(buffer, vector);
    // pinned is a HostBuffer from device.alloc_host. For `both`, host to device runs on one
    // queue and device to host on another that waits for the first queue's start event. Before
    // timing, random bytes go host -> device -> device -> host and must come back unchanged,
    // else dualrt::Error.
    CopyTiming measure(Direction direction, HostMemory host, std::size_t bytes, int repetitions);

private:
    Device device_;
    Queue first_, second_;
    std::uint32_t seed_ = 1;
};

}  // namespace dualrt::samples::bandwidth
