#include "parallel_copy.hpp"

#include "environment.hpp"

#include <algorithm>
#include <cstring>

namespace dualrt::detail {
namespace {

// Below this a thread hand-off costs more than it saves.
constexpr std::size_t min_piece_bytes = 512 * 1024;

std::size_t default_threads() {
    // DUALRT_COPY_THREADS, else half the cores, at most eight: while leaving the application most
    // of the machine. One thread copies pageable memory at only 5 GB/s on the H200 machine's host
    // (docs/BENCHMARKS.md), so the staged rate is this count times that, up to the DMA's.
    if (const auto threads = copy_threads_from_environment()) return *threads;
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<std::size_t>(hardware / 2, 1, 8);
}

}  // namespace

ParallelCopier& ParallelCopier::instance() {
    static ParallelCopier copier(default_threads());
    return copier;
}

ParallelCopier::ParallelCopier(std::size_t threads) {
    for (std::size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ParallelCopier::~ParallelCopier() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (auto& worker : workers_) worker.join();
}

void ParallelCopier::copy(void* dst, const void* src, std::size_t bytes) {
    const std::size_t pieces = std::min(threads(), bytes / min_piece_bytes);
    if (pieces <= 1) {
        std::memcpy(dst, src, bytes);
        return;
    }
    std::lock_guard<std::mutex> one_job(submit_mutex_);
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = Job{static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), bytes,
               pieces, 0, 0};
    wake_.notify_all();
    take_pieces(lock);
    finished_.wait(lock, [&] { return job_.done == job_.pieces; });
    job_ = Job{};
}

void ParallelCopier::take_pieces(std::unique_lock<std::mutex>& lock) {
    while (job_.next < job_.pieces) {
        const std::size_t piece = job_.next++;
        // Pieces are whole multiples of 64 bytes (a cache line) except the last.
        const std::size_t share = (job_.bytes / job_.pieces) & ~std::size_t{63};
        const std::size_t begin = piece * share;
        const std::size_t end = piece + 1 == job_.pieces ? job_.bytes : begin + share;
        unsigned char* dst = job_.dst + begin;
        const unsigned char* src = job_.src + begin;
        lock.unlock();
        std::memcpy(dst, src, end - begin);
        lock.lock();
        if (++job_.done == job_.pieces) finished_.notify_all();
    }
}

void ParallelCopier::work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [&] { return stopping_ || job_.next < job_.pieces; });
        if (stopping_) return;
        take_pieces(lock);
    }
}

}  // namespace dualrt::detail
