#include "staging/staging_pool.hpp"

#include <dualrt/device.hpp>
#include <dualrt/runtime.hpp>

#include "staging/staged_copy.hpp"
#include "support/environment.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <string>

namespace dualrt::detail {
namespace {

constexpr std::size_t default_limit = 256u << 20;
// A chunk of 8 MiB keeps a 55 GB/s DMA engine busy for ~150 µs, long beside the few µs each
// chunk costs in events and thread hand-offs, and small enough that the first DMA starts early.
constexpr std::size_t default_chunk = 8u << 20;
constexpr std::size_t smallest_chunk = 64u << 10;

std::size_t chunk_for(std::size_t limit) {
    // Two chunks at least fit under the limit, so one can fill while the other drains.
    return std::max(std::min(default_chunk, limit / 2), std::min(limit, smallest_chunk));
}

}  // namespace

StagingPool& StagingPool::of(const std::shared_ptr<backend::DeviceImpl>& device) {
    // Function-local statics die in reverse order of construction; the pools are made after the
    // backend registry has made the devices, so they release their pinned memory first.
    static std::mutex mutex;
    static std::map<const backend::DeviceImpl*, std::unique_ptr<StagingPool>> pools;
    std::lock_guard<std::mutex> lock(mutex);
    auto& pool = pools[device.get()];
    if (!pool) pool = std::make_unique<StagingPool>(device);
    return *pool;
}

StagingPool::StagingPool(std::shared_ptr<backend::DeviceImpl> device)
    : device_(std::move(device)) {
    const auto from_environment = staging_limit_from_environment();
    limit_from_environment_ = from_environment.has_value();
    stats_.limit_bytes = from_environment.value_or(default_limit);
    stats_.chunk_bytes = chunk_for(stats_.limit_bytes);
    stats_.min_staged_upload_bytes = min_staged_upload_bytes(device_->info());
    stats_.min_staged_download_bytes = min_staged_download_bytes(device_->info());
}

bool StagingPool::enabled() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_.limit_bytes > 0;
}

std::optional<StagingSlot> StagingPool::pin(std::size_t bytes) {
    std::string reason;
    for (std::size_t size = bytes;; size = std::max(size / 2, smallest_chunk)) {
        try {
            auto buffer = device_->create_host_buffer(size);
            if (buffer) {
                if (size < bytes) ++stats_.smaller_fallbacks;
                auto* data = static_cast<unsigned char*>(buffer->data());
                return StagingSlot{std::move(buffer), data, size, {}};
            }
            reason = "the backend returned no buffer";
        } catch (const Error& e) {
            reason = e.what();
        }
        if (size <= smallest_chunk) break;
    }
    if (!warned_pinning_refused_) {
        warned_pinning_refused_ = true;
        log().warn("staging: pinning {} on {} was refused ({}); copies from pageable memory use "
                   "the driver's own (slower) path while pinning fails",
                   format_bytes(bytes), device_->info().name, reason);
    }
    return std::nullopt;
}

std::vector<StagingSlot> StagingPool::acquire(std::size_t wanted) {
    std::vector<StagingSlot> slots;
    std::vector<backend::EventPtr> to_wait;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stats_.limit_bytes == 0) return slots;
        // Idle buffers whose last use has finished first; then new ones while the limit allows,
        // rather than waiting for a DMA still reading an idle one (a stream of copies on
        // several queues would otherwise wait for the previous copy's last DMA every time);
        // then the busy idle ones. The finished ones move to the front, oldest first. A use
        // seen finished is forgotten and the search stops once `wanted` are found, so that in a
        // stream of copies a lend makes no driver call: lending is on the way to a copy's
        // first DMA, which an upload of 4-16 MiB reached 15-20 us after the call (H200, CUDA).
        std::size_t ready = 0;
        for (std::size_t i = 0; i < idle_.size() && ready < wanted; ++i) {
            Idle& idle = idle_[i];
            if (idle.in_flight && !idle.in_flight->is_complete()) continue;
            idle.in_flight.reset();
            std::rotate(idle_.begin() + static_cast<std::ptrdiff_t>(ready),
                        idle_.begin() + static_cast<std::ptrdiff_t>(i),
                        idle_.begin() + static_cast<std::ptrdiff_t>(i + 1));
            ++ready;
        }
        const auto take_idle = [&](std::size_t count) {
            for (; count > 0 && slots.size() < wanted && !idle_.empty(); --count) {
                Idle idle = std::move(idle_.front());
                idle_.erase(idle_.begin());
                if (idle.in_flight) to_wait.push_back(std::move(idle.in_flight));
                slots.push_back(std::move(idle.slot));
                ++stats_.hits;
            }
        };
        take_idle(ready);
        while (slots.size() < wanted &&
               stats_.pinned_bytes + stats_.chunk_bytes <= stats_.limit_bytes) {
            auto slot = pin(stats_.chunk_bytes);
            if (!slot) break;
            ++stats_.misses;
            ++stats_.buffers;
            stats_.pinned_bytes += slot->bytes;
            stats_.peak_pinned_bytes = std::max(stats_.peak_pinned_bytes, stats_.pinned_bytes);
            slots.push_back(std::move(*slot));
        }
        take_idle(idle_.size());
    }
    for (auto& event : to_wait) {
        try {
            event->wait();
        } catch (const Error& e) {
            // The failure belongs to the copy that used the buffer before, and was reported to
            // it; the buffer itself is fine.
            log().debug("staging: an earlier copy through a staging buffer failed: {}", e.what());
        }
    }
    return slots;
}

void StagingPool::release(StagingSlot slot, backend::EventPtr in_flight) {
    std::lock_guard<std::mutex> lock(mutex_);
    idle_.push_back(Idle{std::move(slot), std::move(in_flight)});
    trim_to_limit();
}

void StagingPool::trim_to_limit() {
    while (stats_.pinned_bytes > stats_.limit_bytes && !idle_.empty()) {
        // A buffer that a queued copy still reads or writes must not be freed under it.
        Idle& victim = idle_.back();
        if (victim.in_flight) {
            try {
                victim.in_flight->wait();
            } catch (const Error& e) {
                log().debug("staging: an earlier copy through a staging buffer failed: {}",
                            e.what());
            }
        }
        stats_.pinned_bytes -= victim.slot.bytes;
        --stats_.buffers;
        idle_.pop_back();
    }
}

void StagingPool::count_staged(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.staged_copies;
    stats_.staged_bytes += bytes;
}

void StagingPool::count_pageable_fallback() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.pageable_fallbacks;
}

StagingStats StagingPool::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
}

void StagingPool::set_limit(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (limit_from_environment_) {
        log().info("staging: {} is set, so Device::set_staging_limit({}) is ignored",
                   env_staging_limit, bytes);
        return;
    }
    stats_.limit_bytes = bytes;
    stats_.chunk_bytes = chunk_for(bytes);
    trim_to_limit();
}

}  // namespace dualrt::detail

namespace dualrt {

StagingStats Device::staging_stats() const {
    if (!impl_) detail::raise_argument("Device::staging_stats", "the Device is empty");
    return detail::StagingPool::of(impl_).stats();
}

void Device::set_staging_limit(std::size_t bytes) const {
    if (!impl_) detail::raise_argument("Device::set_staging_limit", "the Device is empty");
    detail::StagingPool::of(impl_).set_limit(bytes);
}

}  // namespace dualrt
