// Building the embedded .cl files and run-time sources per device, and what each kernel's
// parameters are.
#include "program.hpp"

#include "cached_build.hpp"
#include "check.hpp"
#include "device.hpp"
#include "kernels/embedded_kernels.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
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
using dualrt::detail::file_defining;
using dualrt::detail::UserKernelFile;
using Kind = backend::ParamInfo::Kind;

std::vector<std::string> loaded_names(const std::map<std::string, std::string>& loaded) {
    std::vector<std::string> names;
    for (const auto& entry : loaded) names.push_back(entry.first);
    return names;
}

[[noreturn]] void raise_unknown_kernel(const std::string& name, const DeviceImpl& device,
                                       const std::map<std::string, std::string>& loaded) {
    ErrorInfo info;
    info.errc = Errc::not_found;
    info.backend = "opencl";
    info.call = "Device::kernel";
    info.context = device.describe();
    info.detail = dualrt::detail::unknown_kernel_detail(name, dualrt_opencl_kernel_table(),
                                                        loaded_names(loaded), Backend::opencl);
    dualrt::detail::raise(std::move(info));
}

// A run-time source that cannot be registered: Errc::invalid_argument naming the source.
[[noreturn]] void raise_bad_source(const std::string& source_name, const DeviceImpl& device,
                                   std::string detail) {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = "opencl";
    info.call = "Device::load_sources";
    info.context = "kernel source '" + source_name + "' on " + device.describe();
    info.detail = std::move(detail);
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

// Whether OpenCL C text has the word __kernel or kernel outside comments. Only a program with
// kernels is worth building (and a macro that hides the keyword still reaches the build). A plain
// scan: std::regex recurses per character and can overflow the stack on a long source.
bool mentions_kernel(const std::string& text) {
    const auto word_char = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    };
    std::size_t i = 0;
    while (i < text.size()) {
        if (text.compare(i, 2, "//") == 0) {
            i = text.find('\n', i);
        } else if (text.compare(i, 2, "/*") == 0) {
            i = text.find("*/", i + 2);
            if (i != std::string::npos) i += 2;
        } else if (word_char(text[i])) {
            std::size_t end = i;
            while (end < text.size() && word_char(text[end])) ++end;
            const std::string word = text.substr(i, end - i);
            if (word == "__kernel" || word == "kernel") return true;
            i = end;
        } else {
            ++i;
        }
        if (i == std::string::npos) return false;
    }
    return false;
}

// Compiles `text` for `device` alone, or takes it from the on-disk binary cache (cached_build.hpp,
// docs/program-cache.md): a valid entry skips the compiler; a miss or an entry that cannot be used
// builds from source and (re)writes the entry. The cache never makes a build fail. A compiler
// error arrives as cl::BuildError, which CL_CHECK turns into Errc::compile_error carrying the
// build log; `context` names what is being built.
cl::Program build_program(const DeviceImpl& device, const std::string& text,
                          const std::string& context) {
    detail::log().debug("OpenCL: {}", context);
    CachedBuild cached(device.cl_device(), text, build_options);
    if (std::optional<cl::Program> program = cached.load(device.context())) return *program;
    cl::Program program = CL_CHECK(cl::Program(device.context(), text), context);
    const std::vector<cl::Device> devices{device.cl_device()};
    CL_CHECK(program.build(devices, build_options), context);
    cached.store(program);
    return program;
}

// The kernels a built program defines, from CL_PROGRAM_KERNEL_NAMES ("a;b", possibly empty).
std::vector<std::string> kernel_names(const cl::Program& program, const std::string& context) {
    const std::string list = CL_CHECK(program.getInfo<CL_PROGRAM_KERNEL_NAMES>(), context);
    std::vector<std::string> names;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t end = list.find(';', start);
        if (end == std::string::npos) end = list.size();
        std::string name = list.substr(start, end - start);
        // Some drivers count the terminating NUL or pad with spaces; neither belongs to a name.
        name.erase(std::remove_if(name.begin(), name.end(),
                                  [](unsigned char c) { return c == '\0' || std::isspace(c); }),
                   name.end());
        if (!name.empty()) names.push_back(std::move(name));
        start = end + 1;
    }
    return names;
}

// The kernel `name` of a built program, with what the core's launch checks need.
std::shared_ptr<KernelState> make_state(const DeviceImpl& device, const cl::Program& program,
                                        const std::string& name, const std::string& context) {
    auto state = std::make_shared<KernelState>();
    state->name = name;
    state->kernel = CL_CHECK(cl::Kernel(program, name.c_str()), context);
    state->params = read_params(state->kernel, context);
    const cl::Device& on = device.cl_device();
    state->max_work_group_size =
        CL_CHECK(state->kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(on), context);
    state->preferred_multiple = CL_CHECK(
        state->kernel.getWorkGroupInfo<CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE>(on), context);
    state->static_local_bytes = static_cast<std::size_t>(
        CL_CHECK(state->kernel.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(on), context));
    state->private_bytes = static_cast<std::size_t>(
        CL_CHECK(state->kernel.getWorkGroupInfo<CL_KERNEL_PRIVATE_MEM_SIZE>(on), context));
    return state;
}

// The work-group size suggest_group_size() aims at. OpenCL tells neither registers nor how many
// work-groups a compute unit holds, so this is a rule of thumb rather than a calculation: 256
// work-items are 8 warps on NVIDIA (enough to hide latency within a group, yet small enough that
// several groups share an SM, so one group's stragglers do not leave it idle), 4 wavefronts on
// AMD, and on a CPU (PoCL) enough work-items per group to fill its vector lanes many times over
// and pay the per-group overhead rarely. It is also what a launch with Range{} uses.
constexpr std::size_t suggested_group_target = 256;

}  // namespace

KernelImpl::KernelImpl(std::shared_ptr<DeviceImpl> device, std::shared_ptr<KernelState> state)
    : device_(std::move(device)), state_(std::move(state)) {}

const backend::DeviceImpl& KernelImpl::device() const { return *device_; }

NativeHandle KernelImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(state_->kernel());
}

KernelOccupancy KernelImpl::occupancy(std::size_t, std::size_t) const {
    KernelOccupancy out;
    out.max_group_size = state_->max_work_group_size;
    out.preferred_multiple = state_->preferred_multiple;
    out.static_local_bytes = state_->static_local_bytes;
    out.private_bytes = state_->private_bytes;
    return out;
}

std::size_t KernelImpl::suggest_group_size(std::size_t local_bytes) const {
    // As on CUDA: no size is right for a kernel whose own local memory and local_bytes together
    // exceed what a work-group may use, since every launch of it would fail.
    const auto limit_bytes = device_->info().local_memory_bytes;
    if (limit_bytes > 0 && state_->static_local_bytes + local_bytes > limit_bytes) {
        ErrorInfo info;
        info.errc = Errc::invalid_argument;
        info.backend = "opencl";
        info.call = "Kernel::suggest_group_size";
        info.context = "kernel '" + state_->name + "' on " + device_->describe() + " with " +
                       detail::format_bytes(local_bytes) + " of local memory per work-group";
        info.detail = "no work-group of this kernel can run: its " +
                      detail::format_bytes(state_->static_local_bytes) +
                      " of local memory plus local_bytes " + std::to_string(local_bytes) +
                      " exceed the " + detail::format_bytes(static_cast<std::size_t>(limit_bytes)) +
                      " a work-group may use";
        dualrt::detail::raise(std::move(info));
    }
    // The largest multiple of the preferred multiple up to min(kernel limit, 256): a multiple,
    // so no SIMD lanes idle in the last warp of each group. Past the check above, the local
    // memory does not change the choice: it is per work-group, whatever the group's size, and
    // OpenCL cannot say how it limits the groups resident per compute unit. A multiple above
    // the cap (an implementation that reports its whole limit as the multiple) gives the cap.
    const std::size_t limit = std::max<std::size_t>(state_->max_work_group_size, 1);
    const std::size_t cap = std::min(limit, suggested_group_target);
    const std::size_t multiple = state_->preferred_multiple;
    if (multiple == 0 || multiple > cap) return cap;
    return cap / multiple * multiple;
}

const cl::Program& ProgramCache::program(const DeviceImpl& device, const std::string& key,
                                         const std::string& text, const std::string& what) {
    if (auto found = programs_.find(key); found != programs_.end()) return found->second;

    const std::string context = "building " + what + " for " + device.describe() +
                                " with options '" + build_options + "'";
    return programs_.emplace(key, build_program(device, text, context)).first->second;
}

std::shared_ptr<KernelState> ProgramCache::build_kernel(const DeviceImpl& device,
                                                        const std::string& name) {
    const EmbeddedKernelFile* file = file_defining(dualrt_opencl_kernel_table(), name);
    const std::optional<UserKernelFile> user = dualrt::detail::find_user_kernel(Backend::opencl,
                                                                                name);
    if (file != nullptr) {
        const std::string path = std::string("kernels/cl/") + file->stem + ".cl";
        if (user) {
            dualrt::detail::raise_kernel_defined_twice(Backend::opencl, name, path, *user,
                                                       device.describe());
        }
        const std::string text(reinterpret_cast<const char*>(file->data), file->size);
        const cl::Program& built = program(device, file->stem, text, path);
        return make_state(device, built, name,
                          "kernel '" + name + "' of " + path + " on " + device.describe());
    }
    if (user) {
        // Keyed apart from the built-in stems: a user's file may share a built-in file's name.
        const std::string what = user->describe(Backend::opencl);
        const cl::Program& built = program(device, "user:" + user->key(), user->text, what);
        return make_state(device, built, name,
                          "kernel '" + name + "' of " + what + " on " + device.describe());
    }
    raise_unknown_kernel(name, device, loaded_);
}

std::shared_ptr<backend::KernelImpl> ProgramCache::kernel(const std::shared_ptr<DeviceImpl>& device,
                                                          const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto cached = kernels_.find(name);
    if (cached == kernels_.end())
        cached = kernels_.emplace(name, build_kernel(*device, name)).first;
    return std::make_shared<KernelImpl>(device, cached->second);
}

std::vector<std::string> ProgramCache::load(const DeviceImpl& device,
                                            const std::string& source_name,
                                            const std::string& text) {
    // The build runs outside mutex_: a user's source may take seconds to compile, and building
    // touches no member, so other threads keep launching meanwhile. Whether its names are free
    // can only be known afterwards (CL_PROGRAM_KERNEL_NAMES needs a built program).
    const std::string context = "building kernel source '" + source_name + "' for " +
                                device.describe() + " with options '" + build_options + "'";
    // NVIDIA's OpenCL driver (580) aborts the process when it builds a program without kernels,
    // so such a source is refused before it reaches the driver.
    if (!mentions_kernel(text)) {
        raise_bad_source(source_name, device,
                         "the source defines no kernel (no __kernel function), so there is "
                         "nothing to load");
    }
    const cl::Program built = build_program(device, text, context);
    const std::vector<std::string> names = kernel_names(built, context);
    if (names.empty()) {
        raise_bad_source(source_name, device,
                         "the source defines no kernel (no __kernel function), so there is "
                         "nothing to load");
    }

    std::lock_guard<std::mutex> lock(mutex_);
    refuse_existing(device, source_name, names);
    // Every kernel is created before any is registered, so a failure leaves nothing half-loaded.
    std::vector<std::shared_ptr<KernelState>> states;
    for (const auto& name : names) {
        states.push_back(make_state(device, built, name,
                                    "kernel '" + name + "' of kernel source '" + source_name +
                                        "' on " + device.describe()));
    }
    for (auto& state : states) {
        loaded_.emplace(state->name, source_name);
        kernels_.emplace(state->name, std::move(state));
    }
    detail::log().debug("OpenCL: loaded kernel source '{}' on {}: {} kernel(s)", source_name,
                        device.describe(), names.size());
    return names;
}

// Kernel names are the only key kernel() has, so a second kernel of one name would make one of
// the two unreachable: refuse it, naming where the first one came from. Called under mutex_.
void ProgramCache::refuse_existing(const DeviceImpl& device, const std::string& source_name,
                                   const std::vector<std::string>& names) const {
    for (const auto& name : names) {
        std::string origin;
        if (const auto* file = file_defining(dualrt_opencl_kernel_table(), name)) {
            origin = std::string("a built-in kernel of kernels/cl/") + file->stem + ".cl";
        } else if (const auto user = dualrt::detail::find_user_kernel(Backend::opencl, name)) {
            origin = "a kernel of " + user->describe(Backend::opencl) + ", embedded at build time";
        } else if (auto found = loaded_.find(name); found != loaded_.end()) {
            origin = "loaded before from kernel source '" + found->second + "'";
        } else {
            continue;
        }
        raise_bad_source(source_name, device,
                         "the source defines kernel '" + name +
                             "', which already exists on this device (" + origin +
                             "); kernel names are unique per device, so rename it");
    }
}

}  // namespace dualrt::opencl
