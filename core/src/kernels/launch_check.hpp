// The checks a kernel launch passes before a backend sees it. Internal.
#pragma once

#include <dualrt/kernel.hpp>
#include <dualrt/types.hpp>

#include "backend/backend.hpp"

#include <array>
#include <cstddef>
#include <new>
#include <type_traits>
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

// The checked arguments of one launch, in storage of the launch's own: up to `inline_count`
// (every usual kernel) cost no allocation. They borrow the KernelArguments they were made from.
class CheckedArguments {
public:
    explicit CheckedArguments(std::size_t count) : count_(count) {
        if (count <= inline_count) {
            // Only the `count` arguments in use are made: making all sixteen cost every launch
            // about 150 instructions (callgrind), a tenth of dualrt's own share.
            auto* first = reinterpret_cast<backend::KernelArg*>(inline_);
            for (std::size_t i = 0; i < count; ++i) ::new (first + i) backend::KernelArg();
            data_ = std::launder(first);
        } else {
            more_.resize(count);
            data_ = more_.data();
        }
    }
    CheckedArguments(const CheckedArguments&) = delete;
    CheckedArguments& operator=(const CheckedArguments&) = delete;

    backend::KernelArg& operator[](std::size_t i) { return data_[i]; }
    backend::KernelArgs view() const { return backend::KernelArgs{data_, count_}; }

private:
    static_assert(std::is_trivially_destructible_v<backend::KernelArg>,
                  "the inline arguments are never destroyed");
    static constexpr std::size_t inline_count = 16;
    std::size_t count_;
    alignas(backend::KernelArg) unsigned char inline_[inline_count * sizeof(backend::KernelArg)];
    std::vector<backend::KernelArg> more_;
    backend::KernelArg* data_ = nullptr;
};

// Checks count, kind and size of every argument against the kernel's parameters, and that every
// buffer lives on `device`, and fills `out` (made for `count` arguments). Throws
// Errc::invalid_argument naming the kernel and the argument.
void check_arguments(const backend::KernelImpl& kernel, const KernelArgument* args,
                     std::size_t count, const backend::DeviceImpl& device,
                     CheckedArguments& out);

}  // namespace dualrt::detail
