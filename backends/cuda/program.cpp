// Loading the embedded fatbins and NVRTC output per device, and what each kernel's parameters are.
#include "program.hpp"

#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "kernels/embedded_kernels.hpp"
#include "nvrtc.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <optional>
#include <utility>

// Defined by the files the build generates (dualrt_embed_kernels in CMake): the fatbins compiled
// from kernels/cu/*.cu, the same .cu files as text (for the kernels' signatures), and
// dualrt_kernel.cuh (for sources compiled at run time).
const dualrt::detail::EmbeddedKernelTable& dualrt_cuda_kernel_table();
const dualrt::detail::EmbeddedKernelTable& dualrt_cuda_source_table();

namespace dualrt::cuda {
namespace {

using dualrt::detail::EmbeddedKernelFile;
using dualrt::detail::EmbeddedKernelTable;
using dualrt::detail::file_defining;
using dualrt::detail::KernelSignature;
using dualrt::detail::UserKernelFile;
using Kind = backend::ParamInfo::Kind;

const EmbeddedKernelFile* file_named(const EmbeddedKernelTable& table, const std::string& stem) {
    for (std::size_t f = 0; f < table.count; ++f) {
        if (stem == table.files[f].stem) return &table.files[f];
    }
    return nullptr;
}

[[noreturn]] void raise(Errc errc, const char* call, std::string context, std::string detail) {
    ErrorInfo info;
    info.errc = errc;
    info.backend = "cuda";
    info.call = call;
    info.context = std::move(context);
    info.detail = std::move(detail);
    dualrt::detail::raise(std::move(info));
}

// The parameter sizes the compiled kernel really takes (CUDA 12.4+ drivers say so), checked
// against the signature read from the source: a mismatch would pass garbage to the kernel.
void check_param_sizes(CUfunction function, KernelState& state, const std::string& context) {
    for (std::size_t i = 0; i < state.params.size(); ++i) {
        std::size_t offset = 0;
        std::size_t size = 0;
        CU_CHECK(cuFuncGetParamInfo(function, i, &offset, &size),
                 context + ", reading the size of parameter " + std::to_string(i));
        backend::ParamInfo& param = state.params[i];
        if (param.size == 0) {
            param.size = size;  // a type the signature reader does not know: trust the driver
        } else if (param.size != size) {
            raise(Errc::compile_error, "cuFuncGetParamInfo", context,
                  "parameter " + std::to_string(i) + " ('" + param.type_name + " " + param.name +
                      "') reads as " + std::to_string(param.size) +
                      " bytes from the source, but the compiled kernel takes " +
                      std::to_string(size) + " bytes");
        }
    }
    // Probing one index past the end would tell whether the kernel takes more parameters than
    // read, but the driver answers it with an error that compute-sanitizer reports; a parameter
    // the reader missed shifts the others, which the size check above then usually catches.
}

std::shared_ptr<KernelState> make_state(CUmodule module, const KernelSignature& signature,
                                        const std::string& context) {
    auto state = std::make_shared<KernelState>();
    state->name = signature.name;
    state->params = signature.params;
    const CUresult found = cuModuleGetFunction(&state->function, module, signature.name.c_str());
    if (found == CUDA_ERROR_NOT_FOUND) {
        raise(Errc::compile_error, "cuModuleGetFunction", context,
              "the compiled module has no kernel named '" + signature.name +
                  "': declare it extern \"C\" so that its name is not mangled");
    }
    CU_CHECK(found, context);
    check_param_sizes(state->function, *state, context);
    const auto attribute = [&](CUfunction_attribute which, const char* what) {
        int value = 0;
        CU_CHECK(cuFuncGetAttribute(&value, which, state->function), context + ", reading " + what);
        return static_cast<std::size_t>(value);
    };
    state->max_work_group_size =
        attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "its largest block");
    state->registers = attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, "its registers per thread");
    state->static_shared_bytes =
        attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "its static shared memory");
    state->local_bytes = attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "its local memory");
    return state;
}

// The signatures of the kernels of kernels/cu/<stem>.cu, from its embedded text.
std::vector<KernelSignature> builtin_signatures(const std::string& stem) {
    const EmbeddedKernelFile* source = file_named(dualrt_cuda_source_table(), stem);
    if (source == nullptr) return {};
    return detail::cuda_kernel_signatures(
        std::string(reinterpret_cast<const char*>(source->data), source->size));
}

}  // namespace

KernelImpl::KernelImpl(std::shared_ptr<DeviceImpl> device, std::shared_ptr<KernelState> state)
    : device_(std::move(device)), state_(std::move(state)) {}

const backend::DeviceImpl& KernelImpl::device() const { return *device_; }

NativeHandle KernelImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(state_->function);
}

namespace {

// Whether a block of `kernel` may use `dynamic` bytes of dynamic shared memory beside its static
// ones: together at most the device's default per-block limit (48 KiB), which is what a dualrt
// launch gets (the core holds local-memory arguments to it, and cuLaunchKernel refuses more
// without an opt-in that OpenCL has no counterpart for).
bool shared_fits(const KernelState& kernel, const DeviceImpl& device, std::size_t dynamic) {
    return kernel.static_shared_bytes + dynamic <= device.info().local_memory_bytes;
}

std::string occupancy_context(const KernelState& kernel, const DeviceImpl& device,
                              std::size_t local_bytes) {
    return "kernel '" + kernel.name + "' on " + device.describe() + " with " +
           detail::format_bytes(local_bytes) + " of dynamic shared memory per block";
}

}  // namespace

KernelOccupancy KernelImpl::occupancy(std::size_t group_size, std::size_t local_bytes) const {
    KernelOccupancy out;
    out.max_group_size = state_->max_work_group_size;
    out.preferred_multiple = device_->warp_size();
    out.static_local_bytes = state_->static_shared_bytes;
    out.private_bytes = state_->local_bytes;
    out.registers_per_item = state_->registers;

    int blocks = 0;
    if (shared_fits(*state_, *device_, local_bytes)) {
        ScopedContext current(device_->context());
        // The core has checked group_size against the kernel's limit (at most 1024) and
        // local_bytes against the 48 KiB per block, so both fit the driver's int and size_t.
        CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, state_->function,
                                                             static_cast<int>(group_size),
                                                             local_bytes),
                 occupancy_context(*state_, *device_, local_bytes) + ", blocks of " +
                     std::to_string(group_size) + " threads");
    }
    out.resident_groups = static_cast<std::size_t>(std::max(blocks, 0));

    // An SM schedules whole warps: a block of 48 threads takes the room of 64. Counting warps
    // is how NVIDIA defines occupancy, and it equals resident threads / max threads for block
    // sizes that are multiples of the warp size.
    const std::size_t max_threads = device_->max_threads_per_multiprocessor();
    if (max_threads > 0) {
        const std::size_t warp = std::max<std::size_t>(out.preferred_multiple, 1);
        const std::size_t slots = (group_size + warp - 1) / warp * warp;
        out.max_resident_items = max_threads;
        out.occupancy = std::min(1.0, static_cast<double>(*out.resident_groups * slots) /
                                          static_cast<double>(max_threads));
    }
    return out;
}

std::size_t KernelImpl::suggest_group_size(std::size_t local_bytes) const {
    if (!shared_fits(*state_, *device_, local_bytes)) {
        raise(Errc::invalid_argument, "Kernel::suggest_group_size",
              occupancy_context(*state_, *device_, local_bytes),
              "no block of this kernel can run: its " +
                  detail::format_bytes(state_->static_shared_bytes) +
                  " of static shared memory plus local_bytes " + std::to_string(local_bytes) +
                  " exceed the " +
                  detail::format_bytes(
                      static_cast<std::size_t>(device_->info().local_memory_bytes)) +
                  " a block may use");
    }
    ScopedContext current(device_->context());
    int min_grid = 0;
    int block = 0;
    // No size-dependent shared memory (the callback is for kernels whose shared memory grows
    // with the block; a dualrt launch states its local bytes per work-group instead), and the
    // kernel's own limit as the largest block to consider.
    CU_CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, state_->function, nullptr,
                                              local_bytes,
                                              static_cast<int>(state_->max_work_group_size)),
             occupancy_context(*state_, *device_, local_bytes));
    if (block <= 0) {
        raise(Errc::backend_failure, "cuOccupancyMaxPotentialBlockSize",
              occupancy_context(*state_, *device_, local_bytes),
              "the driver suggested a block of " + std::to_string(block) + " threads");
    }
    return static_cast<std::size_t>(block);
}

void KernelImpl::allow_dynamic_shared(std::size_t bytes) const {
    std::lock_guard<std::mutex> lock(state_->shared_mutex);
    if (bytes <= state_->shared_allowed) return;
    CU_CHECK(cuFuncSetAttribute(state_->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(bytes)),
             "allowing kernel '" + state_->name + "' " + detail::format_bytes(bytes) +
                 " of dynamic shared memory on " + device_->describe());
    state_->shared_allowed = bytes;
}

std::string ProgramCache::origin_of(const std::string& kernel) const {
    if (const auto* file = file_defining(dualrt_cuda_kernel_table(), kernel))
        return std::string("a built-in kernel of kernels/cu/") + file->stem + ".cu";
    if (const auto user = dualrt::detail::find_user_kernel(Backend::cuda, kernel))
        return "a kernel of " + user->describe(Backend::cuda) + ", embedded at build time";
    if (auto found = loaded_.find(kernel); found != loaded_.end())
        return "loaded before from kernel source '" + found->second + "'";
    return kernels_.count(kernel) != 0 ? "loaded before" : "";
}

void ProgramCache::load_module(const DeviceImpl& device, const std::string& origin,
                               const void* image, const std::vector<KernelSignature>& kernels,
                               const std::string& rebuild_hint) {
    const std::string context = "loading " + origin + " on " + device.describe();
    ScopedContext current(device.context());
    CUmodule module = nullptr;
    const CUresult loaded = cuModuleLoadData(&module, image);
    if (loaded == CUDA_ERROR_NO_BINARY_FOR_GPU) {
        raise(Errc::compile_error, "cuModuleLoadData", context,
              "it holds no code that this " + device.info().architecture + " GPU can run: " +
                  rebuild_hint);
    }
    CU_CHECK(loaded, context);
    modules_.push_back(module);  // owned from here on, even if a kernel below fails

    std::vector<std::shared_ptr<KernelState>> states;
    for (const KernelSignature& signature : kernels) {
        states.push_back(make_state(module, signature, "kernel '" + signature.name + "' of " +
                                                           origin + " on " + device.describe()));
    }
    for (auto& state : states) kernels_.emplace(state->name, std::move(state));
}

void ProgramCache::load_module_defining(const DeviceImpl& device, const std::string& name) {
    const EmbeddedKernelFile* file = file_defining(dualrt_cuda_kernel_table(), name);
    const std::optional<UserKernelFile> user = dualrt::detail::find_user_kernel(Backend::cuda,
                                                                                name);
    if (file != nullptr) {
        const std::string path = std::string("kernels/cu/") + file->stem + ".cu";
        if (user) {
            dualrt::detail::raise_kernel_defined_twice(Backend::cuda, name, path, *user,
                                                       device.describe());
        }
        load_module(device, path, file->data, builtin_signatures(file->stem),
                    "dualrt's kernels were built for sm_" DUALRT_CUDA_ARCHITECTURES_TEXT
                    " with PTX for the newest; rebuild dualrt with this GPU's architecture in "
                    "DUALRT_CUDA_ARCHITECTURES, or with a CUDA Toolkit as new as the driver");
        return;
    }
    if (!user) {
        std::vector<std::string> loaded;
        for (const auto& [each, state] : kernels_) loaded.push_back(each);
        raise(Errc::not_found, "Device::kernel", device.describe(),
              dualrt::detail::unknown_kernel_detail(name, dualrt_cuda_kernel_table(), loaded,
                                                    Backend::cuda));
    }
    const std::string what = user->describe(Backend::cuda);
    const std::vector<KernelSignature> signatures = detail::cuda_kernel_signatures(user->text);
    if (!user->fatbin.empty()) {
        load_module(device, what, user->fatbin.data(), signatures,
                    "rebuild target '" + user->origin + "' with this GPU's architecture in "
                    "DUALRT_CUDA_ARCHITECTURES (dualrt_add_kernels compiles the .cu files for "
                    "those)");
        return;
    }
    // Built without the CUDA Toolkit: NVRTC compiles the source now, with the mutex held (other
    // lookups on this device wait, once per file and device, as for OpenCL's built-in programs).
    const std::vector<char> image =
        compile_with_nvrtc(user->text, what, device.compute_capability(), device.describe());
    load_module(device, what, image.data(), signatures,
                "NVRTC compiled it for this device, so the driver should accept it");
}

std::shared_ptr<backend::KernelImpl> ProgramCache::kernel(const std::shared_ptr<DeviceImpl>& device,
                                                          const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto cached = kernels_.find(name);
    if (cached == kernels_.end()) {
        load_module_defining(*device, name);
        cached = kernels_.find(name);
        if (cached == kernels_.end()) {
            raise(Errc::not_found, "Device::kernel", device->describe(),
                  "kernel '" + name + "' is listed for a .cu file whose signature for it could "
                  "not be read from the file's text");
        }
    }
    return std::make_shared<KernelImpl>(device, cached->second);
}

std::vector<std::string> ProgramCache::load_source(const std::shared_ptr<DeviceImpl>& device,
                                                   const std::string& name,
                                                   const std::string& text) {
    const std::string origin = "kernel source '" + name + "'";
    const std::vector<KernelSignature> signatures = detail::cuda_kernel_signatures(text);
    if (signatures.empty()) {
        raise(Errc::invalid_argument, "Device::load_sources", origin + " for " + device->describe(),
              "it defines no kernel: expected at least one extern \"C\" __global__ function");
    }
    const auto refuse_existing = [&] {
        for (const KernelSignature& signature : signatures) {
            const std::string existing = origin_of(signature.name);
            if (existing.empty()) continue;
            raise(Errc::invalid_argument, "Device::load_sources",
                  origin + " for " + device->describe(),
                  "the source defines kernel '" + signature.name +
                      "', which already exists on this device (" + existing +
                      "); kernel names are unique per device, so rename it");
        }
    };
    {
        // Refused before compiling, so a clash costs no NVRTC run.
        std::lock_guard<std::mutex> lock(mutex_);
        refuse_existing();
    }
    // NVRTC runs outside mutex_ (it may take seconds), so other threads keep finding kernels
    // and launching meanwhile, as on the OpenCL backend.
    const std::vector<char> image =
        compile_with_nvrtc(text, name, device->compute_capability(), device->describe());
    std::lock_guard<std::mutex> lock(mutex_);
    refuse_existing();  // another thread may have loaded one of the names meanwhile
    load_module(*device, origin, image.data(), signatures,
                "NVRTC compiled it for this device, so the driver should accept it");
    std::vector<std::string> names;
    for (const KernelSignature& signature : signatures) {
        loaded_.emplace(signature.name, name);
        names.push_back(signature.name);
    }
    return names;
}

void ProgramCache::clear() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    kernels_.clear();
    for (CUmodule module : modules_) {
        CU_CHECK_NOTHROW(cuModuleUnload(module), "unloading a CUDA module");
    }
    modules_.clear();
}

}  // namespace dualrt::cuda
