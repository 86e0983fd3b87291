// Launch geometry and arguments for cuLaunchKernel.
#include "launch.hpp"

#include "buffer.hpp"
#include "device.hpp"
#include "program.hpp"
#include "support/raise.hpp"

#include <limits>
#include <utility>

namespace dualrt::cuda {
namespace {

// The alignment of every local-memory slice: enough for any vector type (float4, double2).
constexpr std::size_t shared_alignment = 16;

std::string extents(int dims, const unsigned (&extent)[3]) {
    std::string text = std::to_string(extent[0]);
    for (int axis = 1; axis < dims; ++axis) text += "x" + std::to_string(extent[axis]);
    return text;
}

std::string extents(int dims, const std::size_t (&extent)[3]) {
    std::string text = std::to_string(extent[0]);
    for (int axis = 1; axis < dims; ++axis) text += "x" + std::to_string(extent[axis]);
    return text;
}

[[noreturn]] void raise_grid_too_large(const KernelImpl& kernel, const DeviceImpl& device,
                                       const backend::LaunchGeometry& geometry, int axis,
                                       std::size_t blocks, std::size_t limit) {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = "cuda";
    info.call = "cuLaunchKernel";
    info.context = "launching kernel '" + kernel.name() + "' on " + device.describe();
    info.detail = "global range " + extents(geometry.dims, geometry.global) +
                  " in work-groups of " + extents(geometry.dims, geometry.local) + " needs " +
                  std::to_string(blocks) + " work-groups in dimension " + std::to_string(axis) +
                  ", but this device launches at most " + std::to_string(limit) +
                  " there; use larger work-groups or fold that dimension into dimension 0";
    detail::raise(std::move(info));
}

}  // namespace

std::string LaunchConfig::describe() const {
    return "a grid of " + extents(dims, grid) + " blocks of " + extents(dims, block) + " threads";
}

LaunchConfig launch_config(const KernelImpl& kernel, const DeviceImpl& device,
                           const backend::LaunchGeometry& geometry) {
    LaunchConfig config;
    config.dims = geometry.dims;
    for (int axis = 0; axis < geometry.dims; ++axis) {
        const std::size_t blocks = geometry.global[axis] / geometry.local[axis];
        const std::size_t limit = std::min<std::size_t>(device.max_grid()[axis],
                                                        std::numeric_limits<unsigned>::max());
        if (blocks > limit) raise_grid_too_large(kernel, device, geometry, axis, blocks, limit);
        config.grid[axis] = static_cast<unsigned>(blocks);
        config.block[axis] = static_cast<unsigned>(geometry.local[axis]);
    }
    return config;
}

LaunchArguments::LaunchArguments(backend::KernelArgs args) {
    Slot* slots = inline_slots_;
    if (args.size() > inline_count) {
        more_slots_.resize(args.size());
        more_pointers_.resize(args.size());
        slots = more_slots_.data();
        pointers_ = more_pointers_.data();
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
        const backend::KernelArg& arg = args[i];
        switch (arg.kind) {
        case backend::ParamInfo::Kind::buffer:
            slots[i].address = static_cast<const BufferImpl*>(arg.buffer)->address() + arg.offset;
            pointers_[i] = &slots[i].address;
            break;
        case backend::ParamInfo::Kind::local:
            shared_bytes_ = (shared_bytes_ + shared_alignment - 1) / shared_alignment *
                            shared_alignment;
            slots[i].shared_offset = static_cast<unsigned>(shared_bytes_);
            shared_bytes_ += arg.bytes;
            pointers_[i] = &slots[i].shared_offset;
            break;
        case backend::ParamInfo::Kind::scalar:
        case backend::ParamInfo::Kind::unknown:
            // The driver only reads through this pointer.
            pointers_[i] = const_cast<void*>(arg.value);
            break;
        }
    }
}

}  // namespace dualrt::cuda
