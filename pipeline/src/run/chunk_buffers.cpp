#include "run/chunk_buffers.hpp"

#include "backend/backend_access.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <stdexcept>

namespace dualrt::detail {
namespace {

bool covers(const std::vector<std::size_t>& have, const std::vector<std::size_t>& need) {
    if (have.size() != need.size()) return false;
    for (std::size_t i = 0; i < need.size(); ++i)
        if (have[i] < need[i]) return false;
    return true;
}

}  // namespace

DeviceSlots DeviceSlots::first(std::size_t n) const {
    DeviceSlots fewer;
    fewer.slots_.assign(slots_.begin(), slots_.begin() + std::min(n, slots_.size()));
    fewer.input_bytes_ = input_bytes_;
    fewer.output_bytes_ = output_bytes_;
    fewer.in_place_ = in_place_;
    fewer.device_bytes_ = device_bytes_;
    return fewer;
}

bool DeviceSlots::hold(std::size_t depth, const std::vector<std::size_t>& input_bytes,
                       const std::vector<std::size_t>& output_bytes, bool in_place) const {
    return slots_.size() == depth && in_place_ == in_place && covers(input_bytes_, input_bytes) &&
           covers(output_bytes_, output_bytes);
}

void DeviceSlots::ensure(const Device& device, std::size_t depth,
                         const std::vector<std::size_t>& input_bytes,
                         const std::vector<std::size_t>& output_bytes, bool in_place) {
    if (hold(depth, input_bytes, output_bytes, in_place)) return;
    // Freed before the new ones are made, so the device never holds both.
    slots_.clear();
    device_bytes_ = 0;
    for (std::size_t i = 0; i < depth; ++i) {
        DeviceSlot slot;
        for (std::size_t bytes : input_bytes) {
            slot.inputs.emplace_back(device.alloc<unsigned char>(bytes));
            device_bytes_ += bytes;
        }
        for (std::size_t k = 0; k < output_bytes.size(); ++k) {
            if (in_place) {
                slot.outputs.push_back(slot.inputs[k]);
                continue;
            }
            slot.outputs.emplace_back(device.alloc<unsigned char>(output_bytes[k]));
            device_bytes_ += output_bytes[k];
        }
        slots_.push_back(std::move(slot));
    }
    input_bytes_ = input_bytes;
    output_bytes_ = output_bytes;
    in_place_ = in_place;
}

std::size_t ring_buffer_bytes(std::size_t bytes) {
    std::size_t step = 1;
    while ((bytes + step - 1) / step > 16) step <<= 1;
    return (bytes + step - 1) / step * step;
}

void StagingRings::ensure(const Device& device, std::size_t slots,
                          const std::vector<std::size_t>& bytes) {
    if (rings_.size() != bytes.size()) {
        rings_.assign(bytes.size(), {});
        bytes_.assign(bytes.size(), 0);
    }
    for (std::size_t array = 0; array < bytes.size(); ++array) {
        auto& ring = rings_[array];
        if (bytes[array] == 0) {  // pinned by the caller: nothing to stage
            ring.clear();
            bytes_[array] = 0;
            continue;
        }
        if (ring.size() == slots && bytes_[array] >= bytes[array]) continue;
        ring.clear();
        bytes_[array] = 0;
        const std::size_t pinned = ring_buffer_bytes(bytes[array]);
        try {
            for (std::size_t i = 0; i < slots; ++i) {
                auto buffer = backend_of(device)->create_host_buffer(pinned);
                if (!buffer) throw std::runtime_error("the backend returned no pinned buffer");
                auto* data = static_cast<unsigned char*>(buffer->data());
                ring.push_back(HostSlot{std::move(buffer), data});
            }
            bytes_[array] = pinned;
        } catch (const std::exception& e) {
            ring.clear();
            log().warn("Pipeline: pinning {} x {} for staging was refused ({}); pageable host "
                       "memory goes through the driver's own path",
                       slots, format_bytes(pinned), e.what());
        }
    }
}

bool StagingRings::any() const {
    return std::any_of(rings_.begin(), rings_.end(), [](const auto& r) { return !r.empty(); });
}

}  // namespace dualrt::detail
