#include "pinned_ranges.hpp"

#include "errors.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace dualrt::detail {
namespace {

struct Entry {
    std::size_t bytes;
    PinnedOrigin origin;
    const backend::DeviceImpl* device;
};

// Ranges by first address. Pinned ranges never overlap (the driver refuses to pin memory twice,
// and register_host checks first), so the only candidate for an address is the last range that
// starts at or before it.
class Registry {
public:
    static Registry& instance() {
        // Never destroyed: pinned buffers held in static objects may die after it otherwise.
        static auto* registry = new Registry;
        return *registry;
    }

    void add(const void* begin, std::size_t bytes, PinnedOrigin origin,
             const backend::DeviceImpl* device) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        ranges_[address(begin)] = Entry{bytes, origin, device};
    }
    void remove(const void* begin) {
        std::unique_lock<std::shared_mutex> lock(mutex_);
        ranges_.erase(address(begin));
    }

    // The range containing `at`, as (first address, entry), if any.
    template <typename Fn>
    auto find(const void* at, Fn&& with) const {
        std::shared_lock<std::shared_mutex> lock(mutex_);
        auto it = ranges_.upper_bound(address(at));
        const bool found =
            it != ranges_.begin() && address(at) < std::prev(it)->first + std::prev(it)->second.bytes;
        return found ? with(&*std::prev(it)) : with(static_cast<const Item*>(nullptr));
    }

    std::optional<PinnedRange> first_overlap(const void* data, std::size_t bytes) const {
        std::shared_lock<std::shared_mutex> lock(mutex_);
        const std::uintptr_t begin = address(data);
        auto it = ranges_.upper_bound(begin);
        if (it != ranges_.begin()) {
            auto before = std::prev(it);
            if (begin < before->first + before->second.bytes) return describe(*before);
        }
        if (it != ranges_.end() && it->first < begin + bytes) return describe(*it);
        return std::nullopt;
    }

    using Item = std::pair<const std::uintptr_t, Entry>;

private:
    static std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
    static PinnedRange describe(const Item& item) {
        return PinnedRange{reinterpret_cast<const void*>(item.first), item.second.bytes,
                           item.second.origin, device_label(item.second.device->info())};
    }

    mutable std::shared_mutex mutex_;
    std::map<std::uintptr_t, Entry> ranges_;
};

// Owns the backend's buffer and lists its range for as long as it lives.
struct Tracked {
    explicit Tracked(std::shared_ptr<backend::HostBufferImpl> buffer) : impl(std::move(buffer)) {}
    ~Tracked() { Registry::instance().remove(impl->data()); }
    Tracked(const Tracked&) = delete;
    Tracked& operator=(const Tracked&) = delete;
    std::shared_ptr<backend::HostBufferImpl> impl;
};

}  // namespace

std::shared_ptr<backend::HostBufferImpl> track_pinned(std::shared_ptr<backend::HostBufferImpl> impl,
                                                      PinnedOrigin origin) {
    auto holder = std::make_shared<Tracked>(std::move(impl));
    backend::HostBufferImpl* raw = holder->impl.get();
    Registry::instance().add(raw->data(), raw->bytes(), origin, &raw->device());
    return std::shared_ptr<backend::HostBufferImpl>(std::move(holder), raw);  // aliasing
}

bool dma_capable(const backend::DeviceImpl& device, const void* data, std::size_t bytes) {
    return Registry::instance().find(data, [&](const Registry::Item* item) {
        if (item == nullptr) return false;
        const auto end = item->first + item->second.bytes;
        if (reinterpret_cast<std::uintptr_t>(data) + bytes > end) return false;
        const backend::DeviceImpl* owner = item->second.device;
        return owner == &device || (owner->info().backend == Backend::cuda &&
                                    device.info().backend == Backend::cuda);
    });
}

std::optional<PinnedRange> overlapping_pinned(const void* data, std::size_t bytes) {
    return Registry::instance().first_overlap(data, bytes);
}

}  // namespace dualrt::detail
