// The checks a kernel launch passes before a backend sees it. Internal.
#pragma once

#include <dualrt/kernel.hpp>
#include <dualrt/types.hpp>

#include "backend/backend.hpp"

#include <vector>

namespace dualrt::detail {

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
