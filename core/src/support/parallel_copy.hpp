// Host memcpy spread over worker threads. One thread cannot read pageable memory as fast as the
// DMA engines drain pinned memory (5-10 GB/s a thread against 55 GB/s on PCIe gen5 on an H200;
// docs/performance.md#copies), so the staged copies and the pipeline split each chunk's
// memcpy across a few threads, with non-temporal stores where the CPU has them. Internal.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace dualrt::detail {

// memcpy(dst, src, bytes) with non-temporal (streaming) stores where the CPU has AVX2 and the
// copy is large: the destination is written without being read into the cache first, which
// nearly doubles one thread's rate into pinned memory. That holds even where the staging buffers
// would fit the host's cache: with plain memcpy, staged uploads of 1-64 MiB ran at half the rate
// (H100 machine, 300 MiB of L3), the DMA reading what the host had just written. Same result as
// memcpy.
void stream_copy(void* dst, const void* src, std::size_t bytes);

// Which way a copy goes through pinned memory, which decides how many threads it spreads over.
enum class PinnedSide {
    into,    // pageable -> pinned (an upload's host part)
    out_of,  // pinned -> pageable (a download's host part)
};

class ParallelCopier {
public:
    // The copier of one owner (a device): each device's staged copies get threads of their own,
    // so two devices staging at once copy side by side rather than in turns (one copier serves
    // one job at a time). Made on first use with DUALRT_COPY_THREADS threads (else the cores, at
    // most 16) and kept for the process's life. A job of n pieces is served by the caller and
    // the first n - 1 workers, so a stream of narrow jobs keeps the same few threads busy. A
    // worker that served the last job spins briefly after it (a stream of copies hands it the
    // next piece without a wake-up), then sleeps; the others sleep at once, leaving their cores
    // to the ones copying, and are woken only by a job wide enough to need them.
    static ParallelCopier& of(const void* owner);

    explicit ParallelCopier(std::size_t threads, bool threads_chosen_by_user = false);
    ~ParallelCopier();
    ParallelCopier(const ParallelCopier&) = delete;
    ParallelCopier& operator=(const ParallelCopier&) = delete;

    // stream_copy(dst, src, bytes), with the calling thread taking a share. Returns when all of
    // it is done. Small copies stay on the calling thread. Several threads may call at once
    // (jobs are serialised: the workers serve one at a time).
    void copy(void* dst, const void* src, std::size_t bytes, PinnedSide side);

    // The threads a copy of `side` spreads over at most, and all of them.
    std::size_t threads(PinnedSide side) const noexcept;
    std::size_t threads() const noexcept { return workers_.size() + 1; }

private:
    struct Job {
        unsigned char* dst = nullptr;
        const unsigned char* src = nullptr;
        std::size_t bytes = 0;
        std::size_t pieces = 0;
        std::size_t next = 0;  // next piece to take
    };
    void work(std::size_t index);  // worker `index` (1, 2, ...; the caller is 0)
    // Takes and copies pieces of the current job until none is left. Caller holds `lock`.
    void take_pieces(std::unique_lock<std::mutex>& lock);

    std::mutex submit_mutex_;  // one job at a time
    std::mutex mutex_;
    std::unique_ptr<std::condition_variable[]> wakes_;  // one per worker, so that a job wakes
                                                        // only the workers it needs
    std::condition_variable finished_;
    Job job_;
    std::atomic<std::uint64_t> posted_{0};  // jobs posted so far; changed under mutex_
    std::atomic<std::size_t> done_{0};      // pieces of the current job finished
    std::atomic<bool> stopping_{false};
    std::vector<std::thread> workers_;
    bool threads_chosen_by_user_;
};

}  // namespace dualrt::detail
