// Loading the embedded fatbins and NVRTC output per device, and what each kernel's parameters are.
#include "program.hpp"

#include "check.hpp"
#include "context.hpp"
#include "device.hpp"
#include "embedded_kernels.hpp"
#include "errors.hpp"
#include "log.hpp"
#include "nvrtc.hpp"

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
    int threads = 0;
    CU_CHECK(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                state->function),
             context + ", reading its largest block");
    state->max_work_group_size = static_cast<std::size_t>(threads);
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
