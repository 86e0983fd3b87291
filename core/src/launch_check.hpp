// The checks a kernel launch passes before a backend sees it. Internal.
#pragma once

#include <dualrt/kernel.hpp>
#include <dualrt/types.hpp>

#include "backend/backend.hpp"

#include <vector>

namespace dualrt::detail {

// The largest work-group a kernel may be launched with on its device: the kernel's own limit
// where the backend knows one and it is tighter than the device's, else the device's (0: none
// known). `kernel_is_tighter` says whose it is, for messages.
struct GroupLimit {
    std::size_t size = 0;
    bool kernel_is_tighter = false;
    const char* whose() const { return kernel_is_tighter ? "kernel's" : "device's"; }
};
GroupLimit group_limit(const backend::KernelImpl& kernel, const DeviceInfo& device);

// Turns the user's ranges into backend geometry: checks dimensions and the device's and kernel's
// limits, chooses a work-group size when `local` is Range{}, and rounds `global` up to a
// multiple of it.
backend::LaunchGeometry launch_geometry(const backend::KernelImpl& kernel, const Range& global,
                                        const Range& local, const DeviceInfo& device);

// Checks count, kind and size of every argument against the kernel's parameters, and that every
// buffer lives on `device`. Throws Errc::invalid_argument naming the kernel and the argument.
std::vector<backend::KernelArg> checked_arguments(const backend::KernelImpl& kernel,
                                                  std::vector<KernelArgument> args,
                                                  const backend::DeviceImpl& device);

}  // namespace dualrt::detail
