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

class ParallelCopier;

// A copy started with ParallelCopier::start: the copier's workers are at it while the caller does
// something else (a staged upload enqueues the DMA of the piece before). finish() has the caller
// take what is left and returns when all of it is done; the destructor finishes it too. While one
// is pending its copier takes no other job, so the thread holding it must finish it before it
// copies again.
class PendingCopy {
public:
    PendingCopy() = default;
    PendingCopy(PendingCopy&& other) noexcept;
    PendingCopy& operator=(PendingCopy&& other) noexcept;
    ~PendingCopy() { finish(); }
    void finish() noexcept;

private:
    friend class ParallelCopier;
    ParallelCopier* copier_ = nullptr;  // null: nothing left to do
    std::unique_lock<std::mutex> job_;  // the copier's one job at a time, held until finished
    // A copy too small to share: done on the caller, by finish().
    void* dst_ = nullptr;
    const void* src_ = nullptr;
    std::size_t bytes_ = 0;
    std::uint32_t generation_ = 0;
    std::size_t pieces_ = 0;
};

class ParallelCopier {
public:
    // The copier of one owner (a device): each device's staged copies get threads of their own,
    // so two devices staging at once copy side by side rather than in turns (one copier serves
    // one job at a time). Made on first use with DUALRT_COPY_THREADS threads (else the cores, at
    // most 16) and kept for the process's life. A job of n pieces is served by the caller and
    // the first n - 1 workers, so a stream of narrow jobs keeps the same few threads busy. A
    // worker spins for a millisecond after each job it served, through narrower jobs that do
    // not need it (a stream of copies hands it the next piece without a wake-up), then sleeps,
    // leaving its core to others, until a job wide enough to need it wakes it.
    static ParallelCopier& of(const void* owner);

    explicit ParallelCopier(std::size_t threads, bool threads_chosen_by_user = false);
    ~ParallelCopier();
    ParallelCopier(const ParallelCopier&) = delete;
    ParallelCopier& operator=(const ParallelCopier&) = delete;

    // stream_copy(dst, src, bytes), with the calling thread taking a share. Returns when all of
    // it is done. Small copies stay on the calling thread. Several threads may call at once
    // (jobs are serialised: the workers serve one at a time).
    void copy(void* dst, const void* src, std::size_t bytes, PinnedSide side) {
        start(dst, src, bytes, side).finish();
    }
    // The same copy, begun on the workers and finished by the returned PendingCopy. A copy too
    // small to share is left whole to finish().
    PendingCopy start(void* dst, const void* src, std::size_t bytes, PinnedSide side);

    // The threads a copy of `side` spreads over at most, and all of them.
    std::size_t threads(PinnedSide side) const noexcept;
    std::size_t threads() const noexcept { return workers_.size() + 1; }

private:
    friend class PendingCopy;
    struct Job {
        unsigned char* dst = nullptr;
        const unsigned char* src = nullptr;
        std::size_t bytes = 0;
    };
    // A job's ticket, one atomic word: its generation (the count of jobs posted, 32 bits), its
    // pieces (16 bits) and the next piece to take (16 bits). Threads take pieces by advancing
    // it, so handing out a piece takes no lock: behind a mutex, a job's 8-16 threads queued for
    // it one after another, and staged uploads of 1-16 MiB ran 4-10% slower (H200, CUDA).
    static std::uint64_t make_ticket(std::uint32_t generation, std::size_t pieces,
                                     std::size_t next) {
        return std::uint64_t{generation} << 32 | std::uint64_t{pieces} << 16 | next;
    }
    static std::uint32_t generation_of(std::uint64_t ticket) {
        return static_cast<std::uint32_t>(ticket >> 32);
    }
    static std::size_t pieces_of(std::uint64_t ticket) { return (ticket >> 16) & 0xFFFF; }
    static std::size_t next_of(std::uint64_t ticket) { return ticket & 0xFFFF; }

    void work(std::size_t index);  // worker `index` (1, 2, ...; the caller is 0)
    // The caller's part of job `generation` of `pieces` pieces: it takes what is left, then waits
    // for the workers' pieces.
    void join(std::uint32_t generation, std::size_t pieces);
    // Takes and copies pieces of job `generation` until none is left, or a later job is posted.
    void take_pieces(std::uint32_t generation);

    std::mutex submit_mutex_;       // one job at a time
    std::uint32_t generation_ = 0;  // jobs posted, under submit_mutex_
    Job job_;  // written before its ticket is posted, unchanged until its pieces are done
    std::atomic<std::uint64_t> ticket_{0};
    std::atomic<std::size_t> done_{0};  // pieces of the current job finished
    // Sleeping workers: a job wakes the ones it needs (one condition variable each), and only
    // where some worker sleeps does posting it take the mutex.
    std::mutex sleep_mutex_;
    std::unique_ptr<std::condition_variable[]> wakes_;
    std::atomic<std::size_t> sleepers_{0};
    std::atomic<bool> stopping_{false};
    std::vector<std::thread> workers_;
    bool threads_chosen_by_user_;
};

}  // namespace dualrt::detail
