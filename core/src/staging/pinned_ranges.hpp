// The host address ranges of every live dualrt pinned allocation (Device::alloc_host) and
// registered range (Device::register_host), so that a copy given a plain pointer into one of them
// is recognised as DMA-able and never staged through the pool. Internal.
#pragma once

#include "backend/backend.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace dualrt::detail {

// How a range became pinned, for messages.
enum class PinnedOrigin { allocated, registered };

// What the registry knows of the range that contains an address.
struct PinnedRange {
    const void* begin = nullptr;
    std::size_t bytes = 0;
    PinnedOrigin origin = PinnedOrigin::allocated;
    std::string device;  // device_label() of the device that pinned it
};

// Whether memory pinned through `owner` is DMA for `device` as it is: the same device, or two
// CUDA devices (CUDA pins for every context). An OpenCL context, or CUDA beside OpenCL, takes
// another's pinned memory for pageable (8 GB/s against 55 on an H200) until it registers it.
bool pinned_alike(const backend::DeviceImpl& owner, const backend::DeviceImpl& device);

// Wraps `impl` so that its range is listed while any reference to it lives: the returned pointer
// shares ownership of `impl` and removes the range just before `impl` is destroyed. Thread-safe.
std::shared_ptr<backend::HostBufferImpl> track_pinned(std::shared_ptr<backend::HostBufferImpl> impl,
                                                      PinnedOrigin origin);

// Whether [data, data + bytes) lies inside one live pinned range that `device` can copy from by
// DMA: one pinned through the same device, or (CUDA pins portably, for every context) through
// any device of the CUDA backend, or one registered with `device` by pin_also_for. Never blocks
// for long (a shared lock and a map lookup).
bool dma_capable(const backend::DeviceImpl& device, const void* data, std::size_t bytes);

// Makes the live pinned range that holds [data, data + bytes) DMA-able for `device` as well, by
// registering the whole range with it (Device::register_host's backend call) the first time it
// is asked; the registration is released with the range. Returns whether `device` can copy the
// memory by DMA now: true at once where dma_capable() is; false where no live range holds it
// all, or the driver refused (asked once per range and device, logged at debug). Thread-safe;
// the registry's lock is not held while the driver registers.
bool pin_also_for(backend::DeviceImpl& device, const void* data, std::size_t bytes);
// Memory its caller holds to be pinned, as `device` sees it: true where no range dualrt pinned
// overlaps it (pinned by other means: the caller's word), else pin_also_for's answer. One look
// into the registry where the answer is known.
bool pinned_as_claimed(backend::DeviceImpl& device, const void* data, std::size_t bytes);

// The pinned allocation that holds all of [data, data + bytes) and that `device` copies by DMA as
// it is (its own, or any CUDA device's on CUDA, or one registered with it by pin_also_for), and
// the range's offset in it; none where no such live allocation holds it. For recordings, whose
// commands name the allocation rather than a pointer (OpenCL command buffers copy between
// memory objects) and keep it alive.
struct PinnedHolder {
    std::shared_ptr<backend::HostBufferImpl> buffer;
    std::size_t offset = 0;
};
std::optional<PinnedHolder> pinned_holder(const backend::DeviceImpl& device, const void* data,
                                          std::size_t bytes);

// A live pinned range that overlaps [data, data + bytes), if any (for register_host's check).
std::optional<PinnedRange> overlapping_pinned(const void* data, std::size_t bytes);

}  // namespace dualrt::detail
