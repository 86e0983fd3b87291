#include "support/parallel_copy.hpp"

#include "support/environment.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DUALRT_X86 1
#endif

namespace dualrt::detail {
namespace {

// Below this a thread hand-off (about a microsecond with spinning workers) costs more than it
// saves. 64 KiB take one thread 8-10 us, and a 1 MiB piece of a staged copy then spreads over
// 16 threads instead of 8: staged uploads of 4 MiB went from 27.1-28.5 to 27.6-30.3 GB/s
// (H100 machine, CUDA, four sweeps each), where 32 KiB pieces were slower than either
// (26.4-27.9).
constexpr std::size_t min_piece_bytes = 64 * 1024;
// Below this the destination may well be read again soon, from the cache: plain memcpy.
constexpr std::size_t min_streamed_bytes = 64 * 1024;
// Spins (each a pause instruction, 14-20 ns on the H200 machine's Xeon) before the caller, its
// own share done, yields its core to the workers still copying theirs.
constexpr int caller_spins = 4000;
// How long a worker that served a job spins for the next one before it sleeps: past the gap
// between two copies of a stream of them (the last DMA, the caller's wait for it, its next
// call: 100-200 us on an H200), so that such a stream wakes no thread. A wake costs the thread
// that posts the job a futex call for each sleeper (22-27 us for the 15 workers of a 16 MiB
// upload there) and the copy the sleeper's start-up. Timed rather than counted because a pause
// instruction takes from 10 to 140 cycles depending on the CPU: 4,000 of them spun for
// 55-82 us there; with this spin staged uploads of 4-16 MiB ran 11-29% faster.
constexpr std::chrono::microseconds worker_spin_time{1000};

void relax() {
#ifdef DUALRT_X86
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

// The copier's threads where DUALRT_COPY_THREADS does not choose: the cores, at most 16. An
// upload's host part reads the application's memory from DRAM, and each thread waits on its
// loads: on an H100 machine's 16 cores, 8 threads moved 26-33 GB/s of a 1 GiB upload into pinned
// memory, 16 moved 35-41 GB/s (the host's own memcpy limit there beside the DMA: 36-42).
std::size_t default_threads() {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    return std::clamp<std::size_t>(hardware, 1, 16);
}

#ifdef DUALRT_X86
// 128 bytes a step: unaligned 32-byte loads, aligned 32-byte streaming stores. Compiled for AVX2
// alone and called only where the CPU has it, so the library still runs on older x86 CPUs.
__attribute__((target("avx2"))) void stream_copy_avx2(unsigned char* d, const unsigned char* s,
                                                      std::size_t bytes) {
    const std::size_t head =
        std::min(bytes, (32 - (reinterpret_cast<std::uintptr_t>(d) & 31)) & std::size_t{31});
    std::memcpy(d, s, head);
    d += head;
    s += head;
    bytes -= head;
    std::size_t i = 0;
    for (; i + 128 <= bytes; i += 128) {
        const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
        const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
        const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 64));
        const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 96));
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), a);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 32), b);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 64), c);
        _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 96), e);
    }
    _mm_sfence();  // streaming stores are weakly ordered: visible before the DMA is enqueued
    std::memcpy(d + i, s + i, bytes - i);
}

bool cpu_has_avx2() {
    static const bool has = __builtin_cpu_supports("avx2");
    return has;
}
#endif

}  // namespace

void stream_copy(void* dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return;  // memcpy's pointers must be valid even then, and may be null here
#ifdef DUALRT_X86
    if (bytes >= min_streamed_bytes && cpu_has_avx2()) {
        stream_copy_avx2(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src),
                         bytes);
        return;
    }
#endif
    std::memcpy(dst, src, bytes);
}

ParallelCopier& ParallelCopier::of(const void* owner) {
    static std::mutex mutex;
    static std::map<const void*, std::unique_ptr<ParallelCopier>> copiers;
    std::lock_guard<std::mutex> lock(mutex);
    auto& copier = copiers[owner];
    if (!copier) {
        const std::optional<std::size_t> chosen = copy_threads_from_environment();
        copier = std::make_unique<ParallelCopier>(chosen.value_or(default_threads()),
                                                  chosen.has_value());
    }
    return *copier;
}

ParallelCopier::ParallelCopier(std::size_t threads, bool threads_chosen_by_user)
    : wakes_(std::make_unique<std::condition_variable[]>(threads)),
      threads_chosen_by_user_(threads_chosen_by_user) {
    for (std::size_t i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
}

ParallelCopier::~ParallelCopier() {
    stopping_.store(true);
    {
        std::lock_guard<std::mutex> lock(sleep_mutex_);
        for (std::size_t i = 1; i < threads(); ++i) wakes_[i].notify_one();
    }
    for (auto& worker : workers_) worker.join();
}

std::size_t ParallelCopier::threads(PinnedSide side) const noexcept {
    // A download's host part reads what its DMA has just written, while the next DMAs write to
    // the host's memory too: on the same machine 8 threads kept pace with the DMA (45-52 GB/s of
    // its 55 at 1 GiB), while 16 slowed it (40-43 GB/s; the waits for the DMAs grew from 1 to
    // 4-6 ms a GiB). So downloads take half the threads, unless the user chose the count.
    if (side == PinnedSide::out_of && !threads_chosen_by_user_)
        return std::max<std::size_t>(1, (threads() + 1) / 2);
    return threads();
}

PendingCopy ParallelCopier::start(void* dst, const void* src, std::size_t bytes,
                                  PinnedSide side) {
    PendingCopy pending;
    pending.copier_ = this;
    const std::size_t pieces = std::min(threads(side), bytes / min_piece_bytes);
    if (pieces <= 1) {
        pending.dst_ = dst;
        pending.src_ = src;
        pending.bytes_ = bytes;
        return pending;
    }
    pending.job_ = std::unique_lock<std::mutex>(submit_mutex_);  // one job at a time
    job_ = Job{static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), bytes};
    done_.store(0, std::memory_order_relaxed);
    const std::uint32_t generation = ++generation_;
    // Published with the job (the store releases it). Sequentially consistent, as is the
    // load of sleepers_ after it, against a worker's count of itself before it checks the
    // ticket: either the worker sees this job, or this sees the worker asleep and wakes it.
    ticket_.store(make_ticket(generation, pieces, 0));
    if (sleepers_.load() > 0) {
        std::lock_guard<std::mutex> lock(sleep_mutex_);
        for (std::size_t i = 1; i < pieces; ++i) wakes_[i].notify_one();
    }
    pending.generation_ = generation;
    pending.pieces_ = pieces;
    return pending;
}

void ParallelCopier::join(std::uint32_t generation, std::size_t pieces) {
    take_pieces(generation);
    // The others' pieces are about as long as ours: spin for them, then give the core away
    // until they are done (a worker may have been preempted in the middle of its piece).
    for (int spin = 0; done_.load(std::memory_order_acquire) != pieces; ++spin) {
        if (spin < caller_spins)
            relax();
        else
            std::this_thread::yield();
    }
}

PendingCopy::PendingCopy(PendingCopy&& other) noexcept { *this = std::move(other); }

PendingCopy& PendingCopy::operator=(PendingCopy&& other) noexcept {
    if (this == &other) return *this;
    finish();
    copier_ = std::exchange(other.copier_, nullptr);
    job_ = std::move(other.job_);
    dst_ = other.dst_;
    src_ = other.src_;
    bytes_ = other.bytes_;
    generation_ = other.generation_;
    pieces_ = other.pieces_;
    return *this;
}

void PendingCopy::finish() noexcept {
    if (!copier_) return;
    if (job_.owns_lock()) {
        copier_->join(generation_, pieces_);
        job_.unlock();
    } else {
        stream_copy(dst_, src_, bytes_);
    }
    copier_ = nullptr;
}

void ParallelCopier::take_pieces(std::uint32_t generation) {
    std::uint64_t ticket = ticket_.load(std::memory_order_acquire);
    for (;;) {
        if (generation_of(ticket) != generation) return;  // a later job: not ours to take
        const std::size_t pieces = pieces_of(ticket), piece = next_of(ticket);
        if (piece >= pieces) return;
        if (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel,
                                           std::memory_order_acquire))
            continue;
        // Piece `piece` is this thread's now. The job stays as posted until every piece is
        // done, this one included. Pieces are whole multiples of 64 bytes (a cache line) except
        // the last.
        const std::size_t share = (job_.bytes / pieces) & ~std::size_t{63};
        const std::size_t begin = piece * share;
        const std::size_t end = piece + 1 == pieces ? job_.bytes : begin + share;
        stream_copy(job_.dst + begin, job_.src + begin, end - begin);
        done_.fetch_add(1, std::memory_order_release);
        ticket = ticket_.load(std::memory_order_acquire);
    }
}

void ParallelCopier::work(std::size_t index) {
    std::uint32_t seen = 0;  // the generation of the last job this worker served
    bool served = false;     // this worker has served a job: it spins after each one
    const auto needed = [&](std::uint64_t ticket) {
        return generation_of(ticket) != seen && index < pieces_of(ticket);
    };
    for (;;) {
        // A stream of copies posts the next job within microseconds: a worker that served the
        // last job it was needed for catches the next such one without sleeping, also past
        // narrower jobs in between (a staged upload's pieces ramp from half the threads to all
        // and back; waking the sleepers, a futex call each, would delay every widening piece).
        // Workers that have not served lately sleep: spare threads spinning take cores from the
        // ones copying.
        std::uint64_t ticket = ticket_.load(std::memory_order_acquire);
        if (served) {
            const auto deadline = std::chrono::steady_clock::now() + worker_spin_time;
            // The clock is read every 64 spins: a read costs about as much as a spin.
            for (unsigned spin = 1; !needed(ticket) && !stopping_.load(std::memory_order_relaxed);
                 ++spin) {
                if (spin % 64 == 0 && std::chrono::steady_clock::now() >= deadline) break;
                relax();
                ticket = ticket_.load(std::memory_order_acquire);
            }
        }
        if (!needed(ticket) && !stopping_.load()) {
            // A job too narrow for this worker, or none yet: asleep until one that needs it.
            std::unique_lock<std::mutex> lock(sleep_mutex_);
            sleepers_.fetch_add(1);
            wakes_[index].wait(lock, [&] {
                ticket = ticket_.load();
                return stopping_.load() || needed(ticket);
            });
            sleepers_.fetch_sub(1);
        }
        if (stopping_.load(std::memory_order_relaxed)) return;
        seen = generation_of(ticket);
        served = true;
        take_pieces(seen);
    }
}

}  // namespace dualrt::detail
