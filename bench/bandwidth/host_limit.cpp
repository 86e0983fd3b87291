#include "host_limit.hpp"

#include "native_common.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <thread>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace dualrt::samples::bandwidth {
namespace {

using Clock = std::chrono::steady_clock;

// Shares start on page boundaries, so that no two threads write to one page.
constexpr std::size_t share_alignment = 4096;

// memcpy with non-temporal stores (SSE2, every x86-64 CPU has it): the destination is written
// to memory without being read into the cache first. A staged copy writes its pinned buffers so,
// for the DMA to read them from memory rather than from the host's cache. A loop of its own, not
// the library's stream_copy: the anchor must not measure the code it judges.
void streaming_copy(unsigned char* dst, const unsigned char* src, std::size_t bytes) {
#if defined(__x86_64__)
    const std::size_t head =
        std::min(bytes, (16 - (reinterpret_cast<std::uintptr_t>(dst) & 15)) & std::size_t{15});
    std::memcpy(dst, src, head);
    std::size_t i = head;
    for (; i + 64 <= bytes; i += 64)
        for (std::size_t k = 0; k < 64; k += 16)
            _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + k),
                             _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + k)));
    _mm_sfence();
    std::memcpy(dst + i, src + i, bytes - i);
#else
    std::memcpy(dst, src, bytes);
#endif
}

// `threads` threads (the caller and threads - 1 workers) memcpy one job together, each its own
// contiguous share. The workers spin between jobs: the limit is what the host's memory allows,
// not what waking a sleeping thread costs.
class CopyTeam {
public:
    explicit CopyTeam(std::size_t threads, HostCopyMethod method = HostCopyMethod::memcpy)
        : threads_(threads), method_(method) {
        for (std::size_t i = 1; i < threads; ++i) workers_.emplace_back([this, i] { serve(i); });
    }
    ~CopyTeam() {
        stop_.store(true, std::memory_order_release);
        for (auto& worker : workers_) worker.join();
    }
    CopyTeam(const CopyTeam&) = delete;
    CopyTeam& operator=(const CopyTeam&) = delete;

    // Seconds from handing out the job until every share is copied.
    double copy(unsigned char* dst, const unsigned char* src, std::size_t bytes) {
        dst_ = dst;
        src_ = src;
        bytes_ = bytes;
        done_.store(0, std::memory_order_relaxed);
        const auto start = Clock::now();
        generation_.fetch_add(1, std::memory_order_release);
        copy_share(0);
        while (done_.load(std::memory_order_acquire) + 1 < threads_) std::this_thread::yield();
        return std::chrono::duration<double>(Clock::now() - start).count();
    }

private:
    void serve(std::size_t index) {
        std::size_t seen = 0;
        for (;;) {
            std::size_t now = generation_.load(std::memory_order_acquire);
            while (now == seen) {
                if (stop_.load(std::memory_order_acquire)) return;
                std::this_thread::yield();
                now = generation_.load(std::memory_order_acquire);
            }
            seen = now;
            copy_share(index);
            done_.fetch_add(1, std::memory_order_acq_rel);
        }
    }
    void copy_share(std::size_t index) const {
        const std::size_t share =
            (bytes_ / threads_ + share_alignment - 1) / share_alignment * share_alignment;
        const std::size_t begin = std::min(bytes_, share * index);
        const std::size_t end = std::min(bytes_, begin + share);
        if (end <= begin) return;
        if (method_ == HostCopyMethod::streaming)
            streaming_copy(dst_ + begin, src_ + begin, end - begin);
        else
            std::memcpy(dst_ + begin, src_ + begin, end - begin);
    }

    const std::size_t threads_;
    const HostCopyMethod method_;
    std::vector<std::thread> workers_;
    std::atomic<std::size_t> generation_{0};
    std::atomic<std::size_t> done_{0};
    std::atomic<bool> stop_{false};
    unsigned char* dst_ = nullptr;
    const unsigned char* src_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace

HostCopyLimit::HostCopyLimit(const Device& device, std::size_t largest)
    : queue_(device.create_queue()),
      pinned_(device.alloc_host<unsigned char>(largest)),
      dma_pinned_(device.alloc_host<unsigned char>(largest)),
      device_buffer_(device.alloc<unsigned char>(largest)),
      pageable_(largest, 1) {
    std::fill(pinned_.begin(), pinned_.end(), static_cast<unsigned char>(2));
    std::fill(dma_pinned_.begin(), dma_pinned_.end(), static_cast<unsigned char>(3));
    queue_.copy(device_buffer_, dma_pinned_, Sync::blocking);
}

std::vector<std::size_t> HostCopyLimit::thread_counts() {
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::size_t> counts;
    for (std::size_t n = 1; n < cores; n *= 2) counts.push_back(n);
    counts.push_back(cores);
    return counts;
}

HostCopyRate HostCopyLimit::measure(bench::Direction direction, std::size_t bytes,
                                    int repetitions) {
    if (direction != bench::Direction::h2d && direction != bench::Direction::d2h)
        throw std::invalid_argument("the host's copy limit is of host to device or device to "
                                    "host copies, the ones that are staged");
    if (bytes > pageable_.size())
        throw std::invalid_argument("the host's copy limit was set up for at most " +
                                    std::to_string(pageable_.size()) + " bytes, not " +
                                    std::to_string(bytes));
    unsigned char* pinned = pinned_.data();
    unsigned char* pageable = pageable_.data();
    unsigned char* dst = direction == bench::Direction::h2d ? pinned : pageable;
    const unsigned char* src = direction == bench::Direction::h2d ? pageable : pinned;
    HostCopyRate best;
    for (const std::size_t threads : thread_counts()) {
        CopyTeam team(threads);
        team.copy(dst, src, bytes);  // warm-up: the threads running, the pages mapped
        std::vector<double> seconds;
        for (int i = 0; i < repetitions; ++i) seconds.push_back(team.copy(dst, src, bytes));
        const double rate = static_cast<double>(bytes) / bench::detail::median(seconds) / 1e9;
        if (rate > best.gb_per_s) best = HostCopyRate{rate, threads, 0.0};
    }
    best.beside_dma_gb_per_s = beside_dma(direction, bytes, best.threads, HostCopyMethod::memcpy,
                                          Turns::apart, repetitions);
    std::vector<std::size_t> relay_threads{best.threads};
    if (thread_counts().back() != best.threads) relay_threads.push_back(thread_counts().back());
    for (const HostCopyMethod method : {HostCopyMethod::memcpy, HostCopyMethod::streaming})
        for (const std::size_t threads : relay_threads) {
            const double rate =
                beside_dma(direction, bytes, threads, method, Turns::relay, repetitions);
            if (rate > best.relay_gb_per_s) {
                best.relay_gb_per_s = rate;
                best.relay_threads = threads;
                best.relay_method = method;
            }
        }
    return best;
}

double HostCopyLimit::beside_dma(bench::Direction direction, std::size_t bytes,
                                 std::size_t threads, HostCopyMethod method, Turns turns,
                                 int repetitions) {
    CopyTeam team(threads, method);
    const auto device = device_buffer_.view(0, bytes);
    HostBuffer<unsigned char>* pinned[2] = {&pinned_, &dma_pinned_};
    unsigned char* pageable = pageable_.data();
    int round = 0;
    // One round, the slower of the two, each timed as the copies are (the DMA by device events,
    // which leaves out the host's wait for it); record() submits the DMA before the memcpy
    // starts. Apart, the host always copies into (or out of) pinned_ and the DMA moves
    // dma_pinned_; in a relay they swap every round, so the DMA moves the buffer the host filled
    // the round before (host to device), or the host empties the one the DMA filled (device to
    // host).
    const auto once = [&] {
        const int host_side = turns == Turns::relay ? round % 2 : 0;
        HostBuffer<unsigned char>& host_buffer = *pinned[host_side];
        const auto dma_buffer = pinned[1 - host_side]->view(0, bytes);
        ++round;
        const Event begin = queue_.record();
        if (direction == bench::Direction::h2d)
            queue_.copy(device, dma_buffer);
        else
            queue_.copy(dma_buffer, device);
        const Event end = queue_.record();
        const double memcpy_seconds = direction == bench::Direction::h2d
                                          ? team.copy(host_buffer.data(), pageable, bytes)
                                          : team.copy(pageable, host_buffer.data(), bytes);
        queue_.finish();
        return std::max(memcpy_seconds, Event::elapsed_ms(begin, end) / 1e3);
    };
    once();  // warm-up, and in a relay both buffers written as the method writes them
    once();
    std::vector<double> seconds;
    for (int i = 0; i < repetitions; ++i) seconds.push_back(once());
    return static_cast<double>(bytes) / bench::detail::median(seconds) / 1e9;
}

}  // namespace dualrt::samples::bandwidth
