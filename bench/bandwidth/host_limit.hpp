// The host's own limit for a staged copy. A copy from pageable memory has to pass through pinned
// memory: its threads memcpy each piece into a pinned buffer before the DMA reads it (host to
// device), or out of one after the DMA wrote it (device to host). However well that overlaps the
// DMA, the staged copy goes no faster than the host's best memcpy between pageable and pinned
// memory, nor than that memcpy while the DMA uses the same memory, nor than a relay in which the
// DMA moves what the host copied the round before: all three measured here on the same machine
// and sizes as the copies.
#pragma once

#include "native_baseline.hpp"

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <vector>

namespace dualrt::samples::bandwidth {

// How the host's threads copy: the C library's memcpy, or non-temporal (streaming) stores.
enum class HostCopyMethod { memcpy, streaming };

struct HostCopyRate {
    double gb_per_s = 0.0;    // 10^9 bytes per second, the median of the timed copies
    std::size_t threads = 0;  // the thread count that reached it
    // The same memcpy with `threads` threads while the DMA moves as many bytes the same way
    // between another pinned buffer and the device, from the start of both to the end of both:
    // the pace of a staged copy whose two halves overlap perfectly. Below gb_per_s where the
    // host's memory cannot serve the threads and the DMA at once.
    double beside_dma_gb_per_s = 0.0;
    // A relay, the pace of a staged copy's steady state: the host copies into one pinned buffer
    // while the DMA moves the other, which the host filled in the round before (host to device),
    // or copies out of the buffer the DMA filled in the round before while the DMA fills the
    // other (device to host); the best of each method with the best thread count above and all
    // cores. Unlike beside_dma, the DMA reads what the host wrote as it wrote it: memcpy leaves
    // it in the host's cache, streaming stores in memory.
    double relay_gb_per_s = 0.0;
    std::size_t relay_threads = 0;
    HostCopyMethod relay_method = HostCopyMethod::memcpy;
};

class HostCopyLimit {
public:
    // Two pinned buffers and a device buffer from `device`, and pageable memory, of `largest`
    // bytes each (all touched before any timing, as a user's std::vector would be).
    HostCopyLimit(const Device& device, std::size_t largest);

    // The best, over 1, 2, 4, ... threads up to the host's cores, of the median rate of
    // `repetitions` memcpys of `bytes` from pageable into pinned memory (h2d) or back (d2h), each
    // thread a contiguous share, after one warm-up copy per thread count; then, with the best
    // count, the median of as many of the same memcpys beside a DMA; then the relay (see
    // HostCopyRate). Other directions are not staged: std::invalid_argument.
    HostCopyRate measure(bench::Direction direction, std::size_t bytes, int repetitions);

    // The thread counts tried: powers of two below the host's cores, and the cores.
    static std::vector<std::size_t> thread_counts();

private:
    // How the host's copy and the DMA share the two pinned buffers (see HostCopyRate).
    enum class Turns {
        apart,  // the host always on one, the DMA always on the other (beside_dma_gb_per_s)
        relay   // they swap every round (relay_gb_per_s)
    };
    // `threads` threads copying `bytes` by `method` beside a DMA of as many bytes, the slower
    // of the two per round: the median rate of `repetitions` rounds after two warm-up ones.
    double beside_dma(bench::Direction direction, std::size_t bytes, std::size_t threads,
                      HostCopyMethod method, Turns turns, int repetitions);

    Queue queue_;
    HostBuffer<unsigned char> pinned_;
    HostBuffer<unsigned char> dma_pinned_;  // the DMA's side (in a relay, the two take turns)
    Buffer<unsigned char> device_buffer_;
    std::vector<unsigned char> pageable_;
};

}  // namespace dualrt::samples::bandwidth
