#include "kernels/launch_check.hpp"

#include "backend/backend_access.hpp"
#include "support/raise.hpp"

#include <algorithm>

namespace dualrt::detail {
namespace {

using Kind = backend::ParamInfo::Kind;

[[noreturn]] void fail(const std::string& kernel, const std::string& detail) {
    raise_argument("Queue::launch('" + kernel + "')", detail);
}

// Work-group shape when the caller leaves it to us: 256 work-items (a good default on every
// GPU we know), shaped per dimension, then shrunk to the device's limits.
std::array<std::size_t, 3> default_local(int dims, const DeviceInfo& device,
                                         std::size_t group_limit) {
    std::array<std::size_t, 3> local = dims == 1   ? std::array<std::size_t, 3>{256, 1, 1}
                                       : dims == 2 ? std::array<std::size_t, 3>{16, 16, 1}
                                                   : std::array<std::size_t, 3>{8, 8, 4};
    for (int axis = 0; axis < 3; ++axis) {
        const auto i = static_cast<std::size_t>(axis);
        if (device.max_work_item_sizes[i] > 0)
            local[i] = std::min(local[i], device.max_work_item_sizes[i]);
    }
    const std::size_t limit = std::max<std::size_t>(group_limit, 1);
    while (local[0] * local[1] * local[2] > limit) {
        auto largest = std::max_element(local.begin(), local.end());
        *largest = std::max<std::size_t>(*largest / 2, 1);
    }
    return local;
}

const char* kind_name(Kind kind) {
    switch (kind) {
        case Kind::buffer: return "a buffer";
        case Kind::local: return "local memory";
        case Kind::scalar: return "a scalar";
        case Kind::unknown: return "unknown";
    }
    return "unknown";
}

const char* kind_name(KernelArgument::Kind kind) {
    switch (kind) {
        case KernelArgument::Kind::buffer: return "a Buffer";
        case KernelArgument::Kind::local: return "dualrt::local_bytes(...)";
        case KernelArgument::Kind::scalar: return "a scalar";
    }
    return "unknown";
}

std::string signature(const backend::KernelImpl& kernel) {
    std::string out = kernel.name() + "(";
    bool first = true;
    for (const auto& p : kernel.params()) {
        if (!first) out += ", ";
        first = false;
        out += p.type_name.empty() ? std::string("?") : p.type_name;
        if (!p.name.empty()) out += " " + p.name;
    }
    return out + ")";
}

std::string describe_param(std::size_t index, const backend::ParamInfo& param) {
    std::string out = "argument " + std::to_string(index);
    if (!param.name.empty()) out += " ('" + param.name + "')";
    return out;
}

}  // namespace

GroupLimit group_limit(const backend::KernelImpl& kernel, const DeviceInfo& device) {
    // The kernel's own limit, where the backend knows one, is never above the device's.
    GroupLimit limit;
    limit.size = device.max_work_group_size;
    const std::size_t kernel_limit = kernel.max_work_group_size();
    limit.kernel_is_tighter = kernel_limit > 0 && (limit.size == 0 || kernel_limit < limit.size);
    if (limit.kernel_is_tighter) limit.size = kernel_limit;
    return limit;
}

backend::LaunchGeometry launch_geometry(const backend::KernelImpl& kernel_impl,
                                        const Range& global, const Range& local,
                                        const DeviceInfo& device) {
    const std::string& kernel = kernel_impl.name();
    const GroupLimit limit = group_limit(kernel_impl, device);
    if (global.dims() < 1 || global.dims() > 3)
        fail(kernel, "the global range is empty; expected 1 to 3 dimensions");
    for (int axis = 0; axis < global.dims(); ++axis)
        if (global[axis] == 0)
            fail(kernel, "global range " + global.str() + " has a zero extent in dimension " +
                             std::to_string(axis));
    if (local.dims() != 0 && local.dims() != global.dims())
        fail(kernel, "the local range " + local.str() + " has " + std::to_string(local.dims()) +
                         " dimensions but the global range " + global.str() + " has " +
                         std::to_string(global.dims()));

    backend::LaunchGeometry geometry;
    geometry.dims = global.dims();
    const auto chosen = local.dims() == 0
                            ? default_local(global.dims(), device, limit.size)
                            : std::array<std::size_t, 3>{local[0], local[1], local[2]};
    for (int axis = 0; axis < 3; ++axis) {
        const auto i = static_cast<std::size_t>(axis);
        const std::size_t l = axis < global.dims() ? chosen[i] : 1;
        if (l == 0) fail(kernel, "local range " + local.str() + " has a zero extent");
        if (device.max_work_item_sizes[i] > 0 && l > device.max_work_item_sizes[i])
            fail(kernel, "local size " + std::to_string(l) + " in dimension " +
                             std::to_string(axis) + " exceeds the device limit of " +
                             std::to_string(device.max_work_item_sizes[i]));
        const std::size_t g = axis < global.dims() ? global[axis] : 1;
        geometry.local[i] = l;
        geometry.global[i] = (g + l - 1) / l * l;  // round up: kernels bounds-check
    }
    const std::size_t group = geometry.local[0] * geometry.local[1] * geometry.local[2];
    if (limit.size > 0 && group > limit.size)
        fail(kernel, "work-group of " + std::to_string(group) + " work-items (" + local.str() +
                         ") exceeds the " + limit.whose() + " maximum work-group size of " +
                         std::to_string(limit.size));
    return geometry;
}

void check_arguments(const backend::KernelImpl& kernel, const KernelArgument* args,
                     std::size_t count, const backend::DeviceImpl& device,
                     CheckedArguments& out) {
    const auto& params = kernel.params();
    if (count != params.size())
        fail(kernel.name(), "kernel " + signature(kernel) + " takes " +
                                std::to_string(params.size()) + " arguments, " +
                                std::to_string(count) + " given");
    std::size_t local_total = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const KernelArgument& arg = args[i];
        const auto& param = params[i];
        const bool kind_ok =
            param.kind == Kind::unknown ||
            (param.kind == Kind::buffer && arg.kind == KernelArgument::Kind::buffer) ||
            (param.kind == Kind::local && arg.kind == KernelArgument::Kind::local) ||
            (param.kind == Kind::scalar && arg.kind == KernelArgument::Kind::scalar);
        if (!kind_ok)
            fail(kernel.name(), describe_param(i, param) + " of " + signature(kernel) + " is " +
                                    kind_name(param.kind) + " ('" + param.type_name +
                                    "'), given " + kind_name(arg.kind));
        backend::KernelArg& checked = out[i];
        switch (arg.kind) {
            case KernelArgument::Kind::buffer: {
                const BufferView& view = *arg.buffer;
                if (!view.valid())
                    fail(kernel.name(), describe_param(i, param) + " is an empty Buffer");
                if (&backend_of(view)->device() != &device)
                    fail(kernel.name(),
                         describe_param(i, param) + " is a buffer of device " +
                             device_label(backend_of(view)->device().info()) +
                             ", but the queue runs on " + device_label(device.info()));
                checked.kind = Kind::buffer;
                checked.buffer = backend_of(view).get();
                checked.offset = view.offset_bytes();
                checked.bytes = view.bytes();
                break;
            }
            case KernelArgument::Kind::local:
                if (arg.local_bytes == 0)
                    fail(kernel.name(), describe_param(i, param) +
                                            ": local_bytes(0); expected > 0");
                local_total += arg.local_bytes;
                checked.kind = Kind::local;
                checked.bytes = arg.local_bytes;
                break;
            case KernelArgument::Kind::scalar:
                if (param.size != 0 && arg.value_bytes != param.size)
                    fail(kernel.name(), describe_param(i, param) + " of " + signature(kernel) +
                                            " is a " + std::to_string(param.size) + "-byte '" +
                                            param.type_name + "', given a " +
                                            std::to_string(arg.value_bytes) + "-byte scalar");
                checked.kind = Kind::scalar;
                checked.bytes = arg.value_bytes;
                checked.value = arg.value;
                break;
        }
    }
    const auto limit = device.info().local_memory_bytes;
    if (limit > 0 && local_total > limit)
        fail(kernel.name(), "the local memory arguments total " + format_bytes(local_total) +
                                ", more than the device's " +
                                format_bytes(static_cast<std::size_t>(limit)) + " per work-group");
}

}  // namespace dualrt::detail
