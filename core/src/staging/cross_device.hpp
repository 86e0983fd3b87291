// Copies and waits between devices: one place chooses the path from the two devices'
// capabilities (a backend's peer copy, else staged through the pinned pool; a wait on the device
// where the backend can, else on the host). Internal.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/types.hpp>

#include "backend/backend.hpp"

#include <memory>

namespace dualrt::detail {

// The shared_ptr of a device, listed or wrapped, from a reference to it (a buffer or event knows
// its device only by reference).
std::shared_ptr<backend::DeviceImpl> shared_device(const backend::DeviceImpl& device);

// Later work on `queue` (of `device`) runs after `event`, of another device: on the device where
// device.can_wait_on(event's device), else by waiting for the event on the host (blocks).
void wait_across(backend::DeviceImpl& device, backend::QueueImpl& queue, backend::EventImpl& event);

// dst and src on two different devices, `queue` on one of them (checked by the caller). Ordered
// after the work enqueued on `queue` before it; work enqueued on `queue` after it sees the copy.
// A peer copy (where the backend has one) is asynchronous like any device copy. A staged copy
// moves the data through pinned host buffers of the pool in pieces, the download of one piece
// overlapping the upload of the one before, and returns once every piece has been downloaded
// and its upload enqueued (blocking the host meanwhile); with Sync::blocking, once it is done.
// Returns the event of the copy's last command (of dst's device).
backend::EventPtr copy_across(const std::shared_ptr<backend::DeviceImpl>& queue_device,
                              backend::QueueImpl& queue, const BufferView& dst,
                              const BufferView& src, Sync sync);

}  // namespace dualrt::detail
