// Recording on OpenCL: the recorder of a device's path, and the kernel objects both paths keep.
#include "recording.hpp"

#include "kernel_arguments.hpp"
#include "recording_parts.hpp"

#include <utility>

namespace dualrt::opencl {
namespace recording {
namespace {

// "argument 2 ('out') of kernel 'saxpy'", for errors while recording a launch.
std::string argument_text(const KernelState& state, std::size_t index) {
    const auto& params = state.params;
    const std::string param = index < params.size() && !params[index].name.empty()
                                  ? " ('" + params[index].name + "')"
                                  : "";
    return "setting argument " + std::to_string(index) + param + " of kernel '" + state.name +
           "' for a recording";
}

}  // namespace

cl_kernel RecordedKernels::with(KernelState& state, backend::KernelArgs args) {
    const KernelState* address = &state;
    std::string key(reinterpret_cast<const char*>(&address), sizeof address);
    for (const backend::KernelArg& arg : args) {
        const std::size_t words[] = {static_cast<std::size_t>(arg.kind),
                                     reinterpret_cast<std::size_t>(arg.buffer), arg.offset,
                                     arg.bytes};
        key.append(reinterpret_cast<const char*>(words), sizeof words);
        if (arg.kind == backend::ParamInfo::Kind::scalar ||
            arg.kind == backend::ParamInfo::Kind::unknown)
            key.append(static_cast<const char*>(arg.value), arg.bytes);
    }
    auto found = kernels_.find(key);
    if (found != kernels_.end()) return found->second();
    const auto program = CL_CHECK(state.kernel.getInfo<CL_KERNEL_PROGRAM>(),
                                  "finding the program of kernel '" + state.name + "'");
    cl::Kernel own = CL_CHECK(cl::Kernel(program, state.name.c_str()),
                              "making a kernel object of '" + state.name +
                                  "' for a recording on " + device_.describe());
    set_kernel_arguments(
        own, args, [&]() -> cl::Buffer& { return sub_buffers_.emplace_back(); },
        [&](std::size_t index) { return argument_text(state, index); });
    return kernels_.emplace(std::move(key), std::move(own)).first->second();
}

RecordedKernels::Kept RecordedKernels::take() {
    Kept kept;
    for (auto& entry : kernels_) kept.kernels.push_back(std::move(entry.second));
    kept.sub_buffers = std::move(sub_buffers_);
    return kept;
}

}  // namespace recording

std::unique_ptr<backend::RecorderImpl> make_recorder(std::shared_ptr<DeviceImpl> device,
                                                     std::shared_ptr<QueueImpl> queue,
                                                     const std::optional<CommandBufferApi>& api) {
    if (api) return recording::command_buffer_recorder(std::move(device), std::move(queue), *api);
    return recording::command_list_recorder(std::move(device));
}

}  // namespace dualrt::opencl
