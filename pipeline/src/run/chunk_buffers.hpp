// The memory a Pipeline keeps between runs: device buffers for the chunks in flight, one per
// array, and rings of pinned buffers that pageable host arrays are staged through. Internal.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>

#include "backend/backend.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace dualrt::detail {

// The device buffers of one chunk in flight: one per input array (room for the chunk and its
// halo) and one per output array (the input's, for in-place pipelines).
struct DeviceSlot {
    std::vector<BufferView> inputs;
    std::vector<BufferView> outputs;
};

class DeviceSlots {
public:
    // `depth` slots with at least the given bytes per input and per output array, reusing the
    // ones held when they are large enough. In place, output k is input k's buffer.
    void ensure(const Device& device, std::size_t depth,
                const std::vector<std::size_t>& input_bytes,
                const std::vector<std::size_t>& output_bytes, bool in_place);
    // Whether the slots held already serve such an ensure(): it would then change nothing.
    bool hold(std::size_t depth, const std::vector<std::size_t>& input_bytes,
              const std::vector<std::size_t>& output_bytes, bool in_place) const;
    const DeviceSlot& operator[](std::size_t i) const { return slots_[i]; }
    std::size_t size() const { return slots_.size(); }
    // The first `n` slots alone, views of the same buffers: for a run on fewer lanes.
    DeviceSlots first(std::size_t n) const;
    std::size_t device_bytes() const { return device_bytes_; }  // held on the device, all slots

private:
    std::vector<DeviceSlot> slots_;
    std::vector<std::size_t> input_bytes_, output_bytes_;
    bool in_place_ = false;
    std::size_t device_bytes_ = 0;
};

// One pinned staging buffer.
struct HostSlot {
    std::shared_ptr<backend::HostBufferImpl> buffer;
    unsigned char* data = nullptr;
};

// The pinned size a ring's buffers get for chunks of `bytes`: the next size with at most four
// significant bits (8 to 16 times a power of two), at most 1/8 above `bytes`. Plans of one
// layout move by a few percent from run to run (4144372 elements, then 4194304), and pinning
// anew for each is what costs: 0.3 s per regrowth of the rings on NVIDIA's OpenCL.
std::size_t ring_buffer_bytes(std::size_t bytes);

// Rings of pinned buffers, one ring per array that is staged. A ring may be empty when pinning
// was refused: that array then takes the driver's own pageable path (slower, still correct).
class StagingRings {
public:
    // For every array with bytes > 0, `slots` pinned buffers of at least that many bytes
    // (ring_buffer_bytes of them).
    void ensure(const Device& device, std::size_t slots, const std::vector<std::size_t>& bytes);
    const std::vector<HostSlot>& ring(std::size_t array) const { return rings_[array]; }
    bool any() const;  // some array is staged through pinned buffers

private:
    std::vector<std::vector<HostSlot>> rings_;
    std::vector<std::size_t> bytes_;
};

}  // namespace dualrt::detail
