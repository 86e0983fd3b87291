// Host memcpy spread over worker threads. One thread cannot read pageable memory as fast as the
// DMA engines drain pinned memory (about 10-20 GB/s against 55 GB/s on PCIe gen5), so the staged
// copies and the pipeline split each chunk's memcpy across a few threads. Internal.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace dualrt::detail {

class ParallelCopier {
public:
    // The process-wide copier. Its threads start on first use and stay parked on a condition
    // variable between jobs.
    static ParallelCopier& instance();

    explicit ParallelCopier(std::size_t threads);
    ~ParallelCopier();
    ParallelCopier(const ParallelCopier&) = delete;
    ParallelCopier& operator=(const ParallelCopier&) = delete;

    // memcpy(dst, src, bytes), with the calling thread taking a share. Returns when all of it is
    // done. Small copies stay on the calling thread. Several threads may call at once (jobs are
    // serialised: the workers serve one at a time).
    void copy(void* dst, const void* src, std::size_t bytes);

    std::size_t threads() const noexcept { return workers_.size() + 1; }

private:
    struct Job {
        unsigned char* dst = nullptr;
        const unsigned char* src = nullptr;
        std::size_t bytes = 0;
        std::size_t pieces = 0;
        std::size_t next = 0;  // next piece to take
        std::size_t done = 0;  // pieces finished
    };
    void work();
    // Takes and copies pieces of the current job until none is left. Caller holds `lock`.
    void take_pieces(std::unique_lock<std::mutex>& lock);

    std::mutex submit_mutex_;  // one job at a time
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable finished_;
    Job job_;
    bool stopping_ = false;
    std::vector<std::thread> workers_;
};

}  // namespace dualrt::detail
