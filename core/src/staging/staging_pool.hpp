// The pinned staging pool of one device: a bounded set of pinned host buffers that copies from
// and to pageable host memory pass through. Internal.
#pragma once

#include <dualrt/staging.hpp>

#include "backend/backend.hpp"

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace dualrt::detail {

// A staging buffer lent to one copy. Give it back with StagingPool::release, with the event of
// the last device work that reads or writes it; the pool lends it again only after that event.
struct StagingSlot {
    std::shared_ptr<backend::HostBufferImpl> buffer;
    unsigned char* data = nullptr;
    std::size_t bytes = 0;
    // The same memory registered with devices of other drivers, which do not see it as pinned
    // otherwise (copies between devices: cross_device.cpp). Declared after `buffer`, so they are
    // unregistered before the memory is freed.
    std::vector<std::shared_ptr<backend::HostBufferImpl>> also_pinned_for;
};

class StagingPool {
public:
    // The pool of `device`, created on first use. Pools live until the process ends.
    static StagingPool& of(const std::shared_ptr<backend::DeviceImpl>& device);

    explicit StagingPool(std::shared_ptr<backend::DeviceImpl> device);

    bool enabled() const;  // false when the limit is 0

    // Up to `wanted` buffers of the chunk size (smaller ones when the system refuses to pin that
    // much), idle ones first, new ones while the limit allows. Never throws for refused pinning:
    // it returns fewer buffers, or none, and counts the fallback.
    std::vector<StagingSlot> acquire(std::size_t wanted);
    // Returns a buffer; `in_flight` (may be null) is the last device work that uses it.
    void release(StagingSlot slot, backend::EventPtr in_flight);

    // Counts one copy that went through the pool, or that fell back to the driver's pageable
    // path because the pool had nothing to lend.
    void count_staged(std::size_t bytes);
    void count_pageable_fallback();

    StagingStats stats() const;
    void set_limit(std::size_t bytes);

private:
    struct Idle {
        StagingSlot slot;
        backend::EventPtr in_flight;
    };
    // Pins a new buffer of at most `bytes`, halving on refusal. Caller holds mutex_.
    std::optional<StagingSlot> pin(std::size_t bytes);
    void trim_to_limit();  // frees idle buffers above the limit; caller holds mutex_

    std::shared_ptr<backend::DeviceImpl> device_;
    mutable std::mutex mutex_;
    std::vector<Idle> idle_;
    StagingStats stats_;
    bool limit_from_environment_ = false;
    bool warned_pinning_refused_ = false;
};

}  // namespace dualrt::detail
