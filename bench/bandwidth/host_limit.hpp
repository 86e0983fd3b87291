// The host's own limit for a staged copy. A copy from pageable memory has to pass through pinned
// memory: its threads memcpy each piece into a pinned buffer before the DMA reads it (host to
// device), or out of one after the DMA wrote it (device to host). However well that overlaps the
// DMA, the staged copy goes no faster than the host's best memcpy between pageable and pinned
// memory, measured here on the same machine and sizes as the copies.
#pragma once

#include "native_baseline.hpp"

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <vector>

namespace dualrt::samples::bandwidth {

struct HostCopyRate {
    double gb_per_s = 0.0;    // 10^9 bytes per second, the median of the timed copies
    std::size_t threads = 0;  // the thread count that reached it
};

class HostCopyLimit {
public:
    // Pinned memory from `device`, and pageable memory, of `largest` bytes each (both touched
    // before any timing, as a user's std::vector would be).
    HostCopyLimit(const Device& device, std::size_t largest);

    // The best, over 1, 2, 4, ... threads up to the host's cores, of the median rate of
    // `repetitions` memcpys of `bytes` from pageable into pinned memory (h2d) or back (d2h), each
    // thread a contiguous share, after one warm-up copy per thread count. Other directions are
    // not staged: std::invalid_argument.
    HostCopyRate measure(bench::Direction direction, std::size_t bytes, int repetitions);

    // The thread counts tried: powers of two below the host's cores, and the cores.
    static std::vector<std::size_t> thread_counts();

private:
    HostBuffer<unsigned char> pinned_;
    std::vector<unsigned char> pageable_;
};

}  // namespace dualrt::samples::bandwidth
