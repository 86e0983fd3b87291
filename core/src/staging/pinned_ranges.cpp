#include "staging/pinned_ranges.hpp"

#include "support/log.hpp"
#include "support/raise.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>
#include <vector>

namespace dualrt::detail {
namespace {

struct Entry {
    std::size_t bytes;
    PinnedOrigin origin;
    const backend::DeviceImpl* device;
    std::weak_ptr<backend::HostBufferImpl> buffer;  // the pinned allocation itself
    // The whole range registered with other devices too (pin_also_for), released with the
    // entry; a null registration records a driver that refused, so it is asked once.
    std::vector<std::pair<const backend::DeviceImpl*, std::shared_ptr<backend::HostBufferImpl>>>
        also;

    // Whether `other` can copy this range by DMA; unset when it has not been asked to register.
    std::optional<bool> dma_for(const backend::DeviceImpl& other) const {
        if (pinned_alike(*device, other)) return true;
        for (const auto& [registered, registration] : also)
            if (registered == &other) return registration != nullptr;
        return std::nullopt;
    }
};

// Ranges by first address. Pinned ranges never overlap (the driver refuses to pin memory twice,
// and register_host checks first), so the only candidate for an address is the last range that
// starts at or before it.
class PinnedRangeTable {
public:
    using Item = std::pair<const std::uintptr_t, Entry>;

    static PinnedRangeTable& instance() {
        // Never destroyed: pinned buffers held in static objects may die after it otherwise.
        static auto* registry = new PinnedRangeTable;
        return *registry;
    }

    void add(const void* begin, std::size_t bytes, PinnedOrigin origin,
             const backend::DeviceImpl* device, std::weak_ptr<backend::HostBufferImpl> buffer) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        ranges_[address(begin)] = Entry{bytes, origin, device, std::move(buffer), {}};
    }
    void remove(const void* begin) {
        decltype(ranges_)::node_type gone;  // its registrations are released after the unlock
        std::unique_lock<std::shared_mutex> lock(mutex_);
        gone = ranges_.extract(address(begin));
    }
    // Records `registration` (null: refused) of the range that starts at `begin` with `device`,
    // unless the range is gone or already has one for that device. Returns whether the device
    // can now copy the range by DMA.
    bool add_registration(const void* begin, const backend::DeviceImpl& device,
                          std::shared_ptr<backend::HostBufferImpl>& registration) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        auto it = ranges_.find(address(begin));
        if (it == ranges_.end()) return false;  // freed meanwhile; the caller drops its own
        if (const auto known = it->second.dma_for(device)) return *known;
        it->second.also.emplace_back(&device, std::move(registration));
        return it->second.also.back().second != nullptr;
    }

    // The range containing `at`, as (first address, entry), if any.
    template <typename Fn>
    auto find(const void* at, Fn&& with) const {
        std::shared_lock<std::shared_mutex> lock(mutex_);
        auto it = ranges_.upper_bound(address(at));
        const bool found = it != ranges_.begin() &&
                           address(at) < std::prev(it)->first + std::prev(it)->second.bytes;
        return found ? with(&*std::prev(it)) : with(static_cast<const Item*>(nullptr));
    }

    // The first range that overlaps [data, data + bytes), if any, as (first address, entry).
    template <typename Fn>
    auto first_overlap(const void* data, std::size_t bytes, Fn&& with) const {
        std::shared_lock<std::shared_mutex> lock(mutex_);
        const std::uintptr_t begin = address(data);
        auto it = ranges_.upper_bound(begin);
        if (it != ranges_.begin()) {
            auto before = std::prev(it);
            if (begin < before->first + before->second.bytes) return with(&*before);
        }
        if (it != ranges_.end() && it->first < begin + bytes) return with(&*it);
        return with(static_cast<const Item*>(nullptr));
    }
    static PinnedRange describe(const Item& item) {
        return PinnedRange{reinterpret_cast<const void*>(item.first), item.second.bytes,
                           item.second.origin, device_label(item.second.device->info())};
    }

private:
    static std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

    mutable std::shared_mutex mutex_;
    std::map<std::uintptr_t, Entry> ranges_;
};

// Owns the backend's buffer and lists its range for as long as it lives.
struct Tracked {
    explicit Tracked(std::shared_ptr<backend::HostBufferImpl> buffer) : impl(std::move(buffer)) {}
    ~Tracked() { PinnedRangeTable::instance().remove(impl->data()); }
    Tracked(const Tracked&) = delete;
    Tracked& operator=(const Tracked&) = delete;
    std::shared_ptr<backend::HostBufferImpl> impl;
};

}  // namespace

bool pinned_alike(const backend::DeviceImpl& owner, const backend::DeviceImpl& device) {
    return &owner == &device ||
           (owner.info().backend == Backend::cuda && device.info().backend == Backend::cuda);
}

std::shared_ptr<backend::HostBufferImpl> track_pinned(std::shared_ptr<backend::HostBufferImpl> impl,
                                                      PinnedOrigin origin) {
    auto holder = std::make_shared<Tracked>(std::move(impl));
    backend::HostBufferImpl* raw = holder->impl.get();
    std::shared_ptr<backend::HostBufferImpl> tracked(std::move(holder), raw);  // aliasing
    PinnedRangeTable::instance().add(raw->data(), raw->bytes(), origin, &raw->device(), tracked);
    return tracked;
}

std::optional<PinnedHolder> pinned_holder(const backend::DeviceImpl& device, const void* data,
                                          std::size_t bytes) {
    return PinnedRangeTable::instance().find(
        data, [&](const PinnedRangeTable::Item* item) -> std::optional<PinnedHolder> {
            if (item == nullptr) return std::nullopt;
            const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(data);
            if (at + bytes > item->first + item->second.bytes) return std::nullopt;
            PinnedHolder holder;
            holder.offset = at - item->first;
            if (pinned_alike(*item->second.device, device)) {
                holder.buffer = item->second.buffer.lock();
            } else {
                for (const auto& [registered, registration] : item->second.also)
                    if (registered == &device) holder.buffer = registration;
            }
            if (!holder.buffer) return std::nullopt;
            return holder;
        });
}

bool dma_capable(const backend::DeviceImpl& device, const void* data, std::size_t bytes) {
    return PinnedRangeTable::instance().find(data, [&](const PinnedRangeTable::Item* item) {
        if (item == nullptr) return false;
        const auto end = item->first + item->second.bytes;
        if (reinterpret_cast<std::uintptr_t>(data) + bytes > end) return false;
        return item->second.dma_for(device).value_or(false);
    });
}

namespace {

// What the registry knows of [data, data + bytes) for `device`.
struct Found {
    bool overlaps = false;          // some live range overlaps it
    bool inside = false;            // a live range holds all of it
    std::optional<bool> dma;        // known already for `device`
    void* begin = nullptr;          // that range
    std::size_t range_bytes = 0;
};

Found look_up(const backend::DeviceImpl& device, const void* data, std::size_t bytes) {
    return PinnedRangeTable::instance().first_overlap(
        data, bytes, [&](const PinnedRangeTable::Item* item) {
            Found f;
            if (item == nullptr) return f;
            f.overlaps = true;
            const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(data);
            f.inside = item->first <= at && at + bytes <= item->first + item->second.bytes;
            f.dma = item->second.dma_for(device);
            f.begin = reinterpret_cast<void*>(item->first);
            f.range_bytes = item->second.bytes;
            return f;
        });
}

// pin_also_for once the first look found a range holding the memory, not yet asked of `device`.
bool register_with(backend::DeviceImpl& device, const void* data, std::size_t bytes) {
    // One registration at a time (a second of the same range would be refused by CUDA as
    // registered already), so look again once it is this thread's turn.
    static std::mutex registering;
    std::lock_guard<std::mutex> one_at_a_time(registering);
    const Found found = look_up(device, data, bytes);
    if (!found.inside) return false;
    if (found.dma) return *found.dma;
    // Registering takes the driver milliseconds per 100 MiB: done outside the registry's lock,
    // once per range and device.
    std::shared_ptr<backend::HostBufferImpl> registration;
    try {
        registration = device.register_host_memory(found.begin, found.range_bytes);
    } catch (const Error& e) {
        log().debug("pinned memory of another device: registering {} at {} with {} failed ({}); "
                    "copies from it are staged there",
                    format_bytes(found.range_bytes), address_text(found.begin),
                    device_label(device.info()), e.what());
    }
    return PinnedRangeTable::instance().add_registration(found.begin, device, registration);
}

// pin_also_for's answer from a first look at the registry.
bool pinned_for(const Found& found, backend::DeviceImpl& device, const void* data,
                std::size_t bytes) {
    if (!found.inside) return false;
    if (found.dma) return *found.dma;
    return register_with(device, data, bytes);
}

}  // namespace

bool pin_also_for(backend::DeviceImpl& device, const void* data, std::size_t bytes) {
    // The answer is usually known, under the shared lock alone.
    return pinned_for(look_up(device, data, bytes), device, data, bytes);
}

bool pinned_as_claimed(backend::DeviceImpl& device, const void* data, std::size_t bytes) {
    const Found found = look_up(device, data, bytes);  // one look: a Pipeline asks on every run
    return !found.overlaps || pinned_for(found, device, data, bytes);
}

std::optional<PinnedRange> overlapping_pinned(const void* data, std::size_t bytes) {
    return PinnedRangeTable::instance().first_overlap(
        data, bytes, [](const PinnedRangeTable::Item* item) -> std::optional<PinnedRange> {
            if (item == nullptr) return std::nullopt;
            return PinnedRangeTable::describe(*item);
        });
}

}  // namespace dualrt::detail
