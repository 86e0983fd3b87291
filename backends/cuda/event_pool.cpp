// EventPool: reusing CUevents.
#include "event_pool.hpp"

#include "check.hpp"
#include "device.hpp"

namespace dualrt::cuda {

EventPool::EventPool(unsigned flags) : flags_(flags) { free_.reserve(capacity); }

EventPool::~EventPool() = default;

CUevent EventPool::take(const DeviceImpl& device) {
    if (!free_.empty()) {
        const CUevent event = free_.back();
        free_.pop_back();
        return event;
    }
    CUevent event = nullptr;
    CU_CHECK(cuEventCreate(&event, flags_),
             "creating an event on " + device.describe());
    return event;
}

bool EventPool::give_back(CUevent event) noexcept {
    if (free_.size() >= capacity) return false;
    free_.push_back(event);  // within the reserved capacity: does not allocate
    return true;
}

void EventPool::release_all() noexcept {
    for (const CUevent event : free_) {
        CU_CHECK_NOTHROW(cuEventDestroy(event), "destroying a pooled event");
    }
    free_.clear();
}

}  // namespace dualrt::cuda
