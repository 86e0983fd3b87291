// Building the embedded .cl files per device, and what each kernel's parameters are.
#include "program.hpp"

#include "check.hpp"
#include "device.hpp"
#include "embedded_kernels.hpp"
#include "errors.hpp"
#include "log.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// Defined by the file the build generates from kernels/cl/*.cl (dualrt_embed_kernels in CMake).
// In its entries, data/size is the .cl source text, not NUL-terminated.
const dualrt::detail::EmbeddedKernelTable& dualrt_opencl_kernel_table();

namespace dualrt::opencl {
namespace {

constexpr const char* build_options = "-cl-std=CL1.2 -cl-kernel-arg-info";

using dualrt::detail::EmbeddedKernelFile;
using dualrt::detail::EmbeddedKernelTable;
using Kind = backend::ParamInfo::Kind;

const EmbeddedKernelFile* file_defining(const EmbeddedKernelTable& table, const std::string& name) {
    for (std::size_t f = 0; f < table.count; ++f) {
        const EmbeddedKernelFile& file = table.files[f];
        for (std::size_t k = 0; k < file.kernel_count; ++k) {
            if (name == file.kernel_names[k]) return &file;
        }
    }
    return nullptr;
}

// "busy, fill, saxpy": every kernel of the table, sorted.
std::string known_kernels(const EmbeddedKernelTable& table) {
    std::vector<std::string> names;
    for (std::size_t f = 0; f < table.count; ++f) {
        const EmbeddedKernelFile& file = table.files[f];
        names.insert(names.end(), file.kernel_names, file.kernel_names + file.kernel_count);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string text;
    for (const auto& name : names) {
        if (!text.empty()) text += ", ";
        text += name;
    }
    return text.empty() ? "(none)" : text;
}

[[noreturn]] void raise_unknown_kernel(const std::string& name, const DeviceImpl& device) {
    ErrorInfo info;
    info.errc = Errc::not_found;
    info.backend = "opencl";
    info.call = "Device::kernel";
    info.context = device.describe();
    info.detail = "no kernel named '" + name + "'; known kernels: " +
                  known_kernels(dualrt_opencl_kernel_table());
    dualrt::detail::raise(std::move(info));
}

// Bytes of an OpenCL C scalar or vector type as CL_KERNEL_ARG_TYPE_NAME spells it ("uint",
// "float4", "unsigned char"); 0 for anything else (structs, pointers, unknown names).
std::size_t scalar_size(std::string type) {
    const auto not_space = [](unsigned char c) { return std::isspace(c) == 0; };
    type.erase(type.begin(), std::find_if(type.begin(), type.end(), not_space));
    type.erase(std::find_if(type.rbegin(), type.rend(), not_space).base(), type.end());
    const std::string unsigned_prefix = "unsigned ";
    if (type.rfind(unsigned_prefix, 0) == 0) type = "u" + type.substr(unsigned_prefix.size());

    std::size_t digits = type.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(type[digits - 1])) != 0) --digits;
    const std::string base = type.substr(0, digits);
    std::size_t width = 1;
    if (digits < type.size()) {
        if (type.size() - digits > 2) return 0;
        width = std::stoul(type.substr(digits));
        if (width == 3) width = 4;  // 3-component vectors are stored as 4
        if (width != 2 && width != 4 && width != 8 && width != 16) return 0;
    }
    static const std::pair<const char*, std::size_t> base_sizes[] = {
        {"char", 1},  {"uchar", 1}, {"short", 2}, {"ushort", 2}, {"half", 2},   {"int", 4},
        {"uint", 4},  {"float", 4}, {"long", 8},  {"ulong", 8},  {"double", 8},
    };
    for (const auto& [name, size] : base_sizes) {
        if (base == name) return size * width;
    }
    return 0;
}

// A kernel-argument query, or nullopt where the implementation keeps no argument info
// (CL_KERNEL_ARG_INFO_NOT_AVAILABLE is an answer, not a failure). Other failures throw.
template <cl_kernel_arg_info Query>
auto arg_info(const cl::Kernel& kernel, cl_uint index, const std::string& context)
    -> std::optional<decltype(kernel.getArgInfo<Query>(index))> {
    try {
        return kernel.getArgInfo<Query>(index);
    } catch (const cl::Error& error) {
        if (error.err() == CL_KERNEL_ARG_INFO_NOT_AVAILABLE) return std::nullopt;
        raise_cl_error(error, "kernel.getArgInfo<Query>(index)", context, __FILE__, __LINE__,
                       CallKind::other);
    }
}

std::vector<backend::ParamInfo> read_params(const cl::Kernel& kernel, const std::string& context) {
    const cl_uint count = CL_CHECK(kernel.getInfo<CL_KERNEL_NUM_ARGS>(), context);
    std::vector<backend::ParamInfo> params(count);
    for (cl_uint i = 0; i < count; ++i) {
        const std::string arg_context = context + ", parameter " + std::to_string(i);
        const auto qualifier = arg_info<CL_KERNEL_ARG_ADDRESS_QUALIFIER>(kernel, i, arg_context);
        if (!qualifier) break;  // no argument info: every kind stays unknown
        backend::ParamInfo& param = params[i];
        switch (*qualifier) {
        case CL_KERNEL_ARG_ADDRESS_GLOBAL:
        case CL_KERNEL_ARG_ADDRESS_CONSTANT:
            param.kind = Kind::buffer;
            break;
        case CL_KERNEL_ARG_ADDRESS_LOCAL:
            param.kind = Kind::local;
            break;
        case CL_KERNEL_ARG_ADDRESS_PRIVATE:
            param.kind = Kind::scalar;
            break;
        default:
            param.kind = Kind::unknown;
            break;
        }
        param.type_name = arg_info<CL_KERNEL_ARG_TYPE_NAME>(kernel, i, arg_context).value_or("");
        param.name = arg_info<CL_KERNEL_ARG_NAME>(kernel, i, arg_context).value_or("");
        if (param.kind == Kind::scalar) param.size = scalar_size(param.type_name);
    }
    return params;
}

}  // namespace

KernelImpl::KernelImpl(std::shared_ptr<DeviceImpl> device, std::shared_ptr<KernelState> state)
    : device_(std::move(device)), state_(std::move(state)) {}

const backend::DeviceImpl& KernelImpl::device() const { return *device_; }

NativeHandle KernelImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(state_->kernel());
}

const cl::Program& ProgramCache::program(const DeviceImpl& device, const std::string& stem,
                                         const unsigned char* source, std::size_t size) {
    if (auto found = programs_.find(stem); found != programs_.end()) return found->second;

    const std::string context = "building kernels/cl/" + stem + ".cl for " + device.describe() +
                                " with options '" + build_options + "'";
    detail::log().debug("OpenCL: {}", context);
    const std::string text(reinterpret_cast<const char*>(source), size);
    cl::Program program = CL_CHECK(cl::Program(device.context(), text), context);
    const std::vector<cl::Device> devices{device.cl_device()};
    CL_CHECK(program.build(devices, build_options), context);
    return programs_.emplace(stem, std::move(program)).first->second;
}

std::shared_ptr<backend::KernelImpl> ProgramCache::kernel(const std::shared_ptr<DeviceImpl>& device,
                                                          const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto cached = kernels_.find(name);
    if (cached == kernels_.end()) {
        const EmbeddedKernelFile* file = file_defining(dualrt_opencl_kernel_table(), name);
        if (file == nullptr) raise_unknown_kernel(name, *device);

        const cl::Program& built = program(*device, file->stem, file->data, file->size);
        const std::string context = "kernel '" + name + "' of kernels/cl/" + file->stem +
                                    ".cl on " + device->describe();
        auto state = std::make_shared<KernelState>();
        state->name = name;
        state->kernel = CL_CHECK(cl::Kernel(built, name.c_str()), context);
        state->params = read_params(state->kernel, context);
        state->max_work_group_size = CL_CHECK(
            state->kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device->cl_device()),
            context);
        cached = kernels_.emplace(name, std::move(state)).first;
    }
    return std::make_shared<KernelImpl>(device, cached->second);
}

}  // namespace dualrt::opencl
