// Where a staged copy's time went, for DUALRT_LOG=debug. Internal.
#pragma once

#include "support/log.hpp"
#include "support/raise.hpp"

#include <spdlog/fmt/fmt.h>

#include <chrono>
#include <cstddef>
#include <string>

namespace dualrt::detail {

// One line per staged copy at debug level: its host copies (from or to pageable memory; for an
// upload, what of them the enqueue of the piece before did not hide), its waits for the DMAs (a
// buffer's previous one before refilling it, or a piece's before copying it on), its enqueues,
// the borrowing of its pool buffers, and the whole call. Whether a copy falls short of the host's
// memcpy limit because its memcpys run slow (the DMAs share the host's memory), because they wait
// for the DMA, or because of what each copy costs before its first DMA shows there. Nothing is
// timed while the log is quieter than debug.
class CopyProfile {
public:
    CopyProfile() : on_(log().should_log(spdlog::level::debug)) {
        if (on_) begun_ = Clock::now();
    }
    bool on() const { return on_; }  // whether report() will log anything
    template <typename Work>
    auto host_copy(Work&& work) {
        return timed(host_copy_s_, work);
    }
    template <typename Work>
    void dma_wait(Work&& work) {
        timed(dma_wait_s_, work);
    }
    template <typename Work>
    void enqueue(Work&& work) {
        timed(enqueue_s_, work);
    }
    template <typename Work>
    auto lend(Work&& work) {  // borrowing the pool's buffers (pinning new ones where it must)
        return timed(lend_s_, work);
    }
    // `copy_threads`: the threads of its host copies (0: it made none, as between devices).
    void report(const std::string& what, std::size_t bytes, std::size_t pieces,
                std::size_t piece, std::size_t buffers, std::size_t copy_threads) const {
        if (!on_) return;
        const double call_s = seconds_since(begun_);
        const auto rate = [&](double s) { return s > 0.0 ? double(bytes) / s / 1e9 : 0.0; };
        const double rest_s = call_s - host_copy_s_ - dma_wait_s_ - enqueue_s_ - lend_s_;
        const std::string host_copies =
            copy_threads == 0 ? std::string()
                              : fmt::format("host copies {:.3f} ms ({:.1f} GB/s on {} threads), ",
                                            1e3 * host_copy_s_, rate(host_copy_s_),
                                            copy_threads);
        log().debug("staged {} of {} in {} pieces of up to {} through {} pinned buffers, {:.3f} "
                    "ms ({:.1f} GB/s): {}waits for DMAs {:.3f} ms, enqueues {:.3f} ms, lending "
                    "(and pinning) buffers {:.3f} ms, the rest {:.3f} ms",
                    what, format_bytes(bytes), pieces, format_bytes(piece), buffers, 1e3 * call_s,
                    rate(call_s), host_copies, 1e3 * dma_wait_s_, 1e3 * enqueue_s_,
                    1e3 * lend_s_, 1e3 * rest_s);
    }

private:
    using Clock = std::chrono::steady_clock;
    static double seconds_since(Clock::time_point from) {
        return std::chrono::duration<double>(Clock::now() - from).count();
    }
    template <typename Work>
    auto timed(double& total, Work& work) {
        if (!on_) return work();
        const auto start = Clock::now();
        struct AddOnReturn {  // also where the work returns a value
            double& total;
            Clock::time_point start;
            ~AddOnReturn() { total += seconds_since(start); }
        } add{total, start};
        return work();
    }
    bool on_;
    Clock::time_point begun_;
    double host_copy_s_ = 0.0;
    double dma_wait_s_ = 0.0;
    double enqueue_s_ = 0.0;
    double lend_s_ = 0.0;
};

}  // namespace dualrt::detail
