// Probe: how fast the host copies pageable memory into pinned memory and back, by
// thread count, copy size and store kind (memcpy vs AVX2 non-temporal stores), in a pool of
// threads started once (as dualrt's ParallelCopier is). Pinned memory comes from
// cuMemHostAlloc when built with -DWITH_CUDA, else from plain aligned memory.
//   g++ -O2 -mavx2 -std=c++17 host_copy.cpp -lpthread -o host_copy
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#ifdef WITH_CUDA
#include <cuda.h>
#endif

using Clock = std::chrono::steady_clock;

static void copy_nt(void* dst, const void* src, std::size_t bytes) {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    std::size_t head = (32 - (reinterpret_cast<std::uintptr_t>(d) & 31)) & 31;
    head = std::min(head, bytes);
    std::memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    std::size_t i = 0;
    for (; i + 128 <= bytes; i += 128) {
        __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
        __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
        __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 64));
        __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 96));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), a);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 32), b);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 64), c);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 96), e);
    }
    _mm_sfence();
    std::memcpy(d + i, s + i, bytes - i);
}

// A pool that spins on a generation counter: the best case of any hand-off.
struct Pool {
    explicit Pool(int n) : n(n) {
        for (int t = 1; t < n; ++t) threads.emplace_back([this, t] { work(t); });
    }
    ~Pool() {
        stop = true;
        generation.fetch_add(1);
        for (auto& t : threads) t.join();
    }
    void work(int t) {
        unsigned seen = 0;
        for (;;) {
            unsigned g;
            while ((g = generation.load(std::memory_order_acquire)) == seen) _mm_pause();
            seen = g;
            if (stop) return;
            part(t);
            done.fetch_add(1, std::memory_order_acq_rel);
        }
    }
    void part(int t) {
        std::size_t share = (bytes / n) & ~std::size_t(63);
        std::size_t b = t * share, e = t + 1 == n ? bytes : b + share;
        if (nt) copy_nt(dst + b, src + b, e - b);
        else std::memcpy(dst + b, src + b, e - b);
    }
    void copy(char* d, const char* s, std::size_t len, bool use_nt) {
        dst = d, src = s, bytes = len, nt = use_nt;
        done.store(0);
        generation.fetch_add(1, std::memory_order_acq_rel);
        part(0);
        while (done.load(std::memory_order_acquire) != n - 1) _mm_pause();
    }
    int n;
    std::vector<std::thread> threads;
    std::atomic<unsigned> generation{0};
    std::atomic<int> done{0};
    std::atomic<bool> stop{false};
    char* dst = nullptr;
    const char* src = nullptr;
    std::size_t bytes = 0;
    bool nt = false;
};

int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const std::size_t total = std::size_t(256) << 20;
    char* pageable = static_cast<char*>(std::aligned_alloc(4096, total));
    char* pinned = nullptr;
#ifdef WITH_CUDA
    cuInit(0);
    CUdevice dev;
    cuDeviceGet(&dev, 0);
    CUcontext ctx;
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    void* p = nullptr;
    if (cuMemHostAlloc(&p, total, CU_MEMHOSTALLOC_PORTABLE) != CUDA_SUCCESS) return 1;
    pinned = static_cast<char*>(p);
    std::printf("pinned memory: cuMemHostAlloc\n");
#else
    pinned = static_cast<char*>(std::aligned_alloc(4096, total));
#endif
    std::memset(pageable, 1, total);
    std::memset(pinned, 2, total);
    for (int threads : {1, 2, 4, 8, 12, 16}) {
        Pool pool(threads);
        for (std::size_t size : {std::size_t(1) << 20, std::size_t(4) << 20, std::size_t(16) << 20,
                                 std::size_t(64) << 20}) {
            std::printf("%2d threads %3zu MiB:", threads, size >> 20);
            for (int dir = 0; dir < 2; ++dir)
                for (bool nt : {false, true}) {
                    std::vector<double> rates;
                    const std::size_t reps = std::max<std::size_t>(4, total / size);
                    for (std::size_t r = 0; r <= reps; ++r) {
                        // A different window each time, as a stream of blocks reads fresh memory.
                        const std::size_t at = (r * size) % (total - size + 1);
                        const auto t0 = Clock::now();
                        if (dir == 0) pool.copy(pinned + at, pageable + at, size, nt);
                        else pool.copy(pageable + at, pinned + at, size, nt);
                        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
                        if (r) rates.push_back(size / s / 1e9);
                    }
                    std::sort(rates.begin(), rates.end());
                    std::printf("  %s %s %5.1f", dir == 0 ? "to-pinned" : "from-pinned",
                                nt ? "nt" : "memcpy", rates[rates.size() / 2]);
                }
            std::printf(" GB/s\n");
        }
    }
    return 0;
}
