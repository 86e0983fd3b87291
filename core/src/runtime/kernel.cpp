#include <dualrt/kernel.hpp>

#include "backend/backend.hpp"
#include "kernels/launch_check.hpp"
#include "support/raise.hpp"

#include <string>

namespace dualrt {
namespace {

// The checks occupancy() and suggest_group_size() share with a launch: the same limits, so that
// a size the sweep may ask about is a size a launch accepts, and the same style of message.
void check_local_bytes(const std::string& operation, const backend::KernelImpl& kernel,
                       std::size_t local_bytes) {
    const auto limit = kernel.device().info().local_memory_bytes;
    if (limit > 0 && local_bytes > limit)
        detail::raise_argument(operation,
                               "local_bytes " + std::to_string(local_bytes) +
                                   " is more than the device's " +
                                   detail::format_bytes(static_cast<std::size_t>(limit)) +
                                   " of local memory per work-group");
}

void check_group_size(const std::string& operation, const backend::KernelImpl& kernel,
                      std::size_t group_size) {
    const detail::GroupLimit limit = detail::group_limit(kernel, kernel.device().info());
    const std::string allowed =
        limit.size > 0 ? "; expected 1 to " + std::to_string(limit.size) + " (the " +
                             limit.whose() + " maximum work-group size)"
                       : "; expected at least 1";
    if (group_size == 0) detail::raise_argument(operation, "group_size 0" + allowed);
    if (limit.size > 0 && group_size > limit.size)
        detail::raise_argument(operation, "group_size " + std::to_string(group_size) +
                                              " exceeds the " + limit.whose() +
                                              " maximum work-group size of " +
                                              std::to_string(limit.size));
}

}  // namespace

Kernel::Kernel(std::shared_ptr<backend::KernelImpl> impl) : impl_(std::move(impl)) {}

const std::string& Kernel::name() const {
    if (!impl_) detail::raise_argument("Kernel::name", "the Kernel is empty");
    return impl_->name();
}

std::size_t Kernel::param_count() const {
    if (!impl_) detail::raise_argument("Kernel::param_count", "the Kernel is empty");
    return impl_->params().size();
}

NativeHandle Kernel::native_handle() const {
    if (!impl_) detail::raise_argument("Kernel::native_handle", "the Kernel is empty");
    return impl_->native_handle();
}

KernelOccupancy Kernel::occupancy(std::size_t group_size, std::size_t local_bytes) const {
    if (!impl_) detail::raise_argument("Kernel::occupancy", "the Kernel is empty");
    const std::string operation = "Kernel::occupancy('" + impl_->name() + "')";
    check_group_size(operation, *impl_, group_size);
    check_local_bytes(operation, *impl_, local_bytes);
    KernelOccupancy out = impl_->occupancy(group_size, local_bytes);
    out.group_size = group_size;
    out.local_bytes = local_bytes;
    return out;
}

std::size_t Kernel::suggest_group_size(std::size_t local_bytes) const {
    if (!impl_) detail::raise_argument("Kernel::suggest_group_size", "the Kernel is empty");
    check_local_bytes("Kernel::suggest_group_size('" + impl_->name() + "')", *impl_, local_bytes);
    return impl_->suggest_group_size(local_bytes);
}

}  // namespace dualrt
