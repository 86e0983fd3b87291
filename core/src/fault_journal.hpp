// The kernels launched on each device that are not yet known to have completed, so that a kernel
// fault, which CUDA and NVIDIA's OpenCL report at a later call (often a synchronisation on
// another queue), names the kernels it can come from. Internal.
#pragma once

#include <dualrt/error.hpp>

#include <string>
#include <utility>

namespace dualrt::backend {
class DeviceImpl;
}

namespace dualrt::detail {

// `kernel` was enqueued on `queue` (an identity only, never dereferenced) of `device`.
void journal_launch(const backend::DeviceImpl& device, const void* queue,
                    const std::string& kernel) noexcept;

// Everything enqueued on `queue` so far has completed (a finish or a blocking call returned).
void journal_queue_done(const backend::DeviceImpl& device, const void* queue) noexcept;

// `device` is going: its entries go too, so that a device made later at its address starts empty.
void journal_forget(const backend::DeviceImpl& device) noexcept;
// Throws `error` again, with the kernels in flight on `device` added to its detail when it is
// Errc::device_lost (a kernel faulted).
[[noreturn]] void rethrow_with_suspects(const backend::DeviceImpl& device, const Error& error);

// Runs `work`; a device_lost failure from it names the kernels that may have faulted.
template <typename Work>
decltype(auto) reporting_faults(const backend::DeviceImpl& device, Work&& work) {
    try {
        return std::forward<Work>(work)();
    } catch (const Error& error) {
        if (error.errc() != Errc::device_lost) throw;
        rethrow_with_suspects(device, error);
    }
}

}  // namespace dualrt::detail
