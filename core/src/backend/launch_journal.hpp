// The kernels launched on each device that are not yet known to have completed, so that a kernel
// fault, which CUDA and NVIDIA's OpenCL report at a later call (often a synchronisation on
// another queue), names the kernels it can come from. Each device owns its journal
// (backend::DeviceImpl::launch_journal), which goes with it. Internal.
#pragma once

#include "backend/backend.hpp"

#include <dualrt/error.hpp>

#include <memory>
#include <string>
#include <utility>

namespace dualrt::detail {

// A new, empty journal, for a backend::DeviceImpl to own (backend.hpp).
std::unique_ptr<LaunchJournal, LaunchJournalDeleter> make_launch_journal();

// `kernel` was enqueued on `queue` (an identity only, never dereferenced) of `device`.
void journal_launch(const backend::DeviceImpl& device, const void* queue,
                    const std::string& kernel) noexcept;

// Everything enqueued on `queue` so far has completed (a finish or a blocking call returned).
void journal_queue_done(const backend::DeviceImpl& device, const void* queue) noexcept;

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
