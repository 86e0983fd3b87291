// Modules and kernels: the built-in fatbins embedded in the module, and sources compiled at run
// time with NVRTC, loaded once per device and found by kernel name.
#pragma once

#include "backend/backend.hpp"
#include "kernel_signature.hpp"

#include <cuda.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dualrt::cuda {

class DeviceImpl;

// One kernel of one device, shared by every KernelImpl handle of that name on that device.
struct KernelState {
    std::string name;
    CUfunction function = nullptr;  // owned by its module, which the ProgramCache owns
    std::vector<backend::ParamInfo> params;
    std::size_t max_work_group_size = 0;  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    // What the compiled code uses, for Kernel::occupancy; fixed once the module is loaded.
    std::size_t registers = 0;            // CU_FUNC_ATTRIBUTE_NUM_REGS, per thread
    std::size_t static_shared_bytes = 0;  // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, per block
    std::size_t local_bytes = 0;          // CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, per thread
    std::mutex shared_mutex;              // guards shared_allowed
    std::size_t shared_allowed = 0;       // dynamic shared memory opted into beyond 48 KiB
};

// The public Kernel's implementation: a handle on a KernelState that keeps its device (and so
// the module holding the function) alive.
class KernelImpl final : public backend::KernelImpl {
public:
    KernelImpl(std::shared_ptr<DeviceImpl> device, std::shared_ptr<KernelState> state);

    const backend::DeviceImpl& device() const override;
    const std::string& name() const override { return state_->name; }
    const std::vector<backend::ParamInfo>& params() const override { return state_->params; }
    std::size_t max_work_group_size() const override { return state_->max_work_group_size; }
    // From the driver's occupancy calculator (cuOccupancyMaxActiveBlocksPerMultiprocessor,
    // cuOccupancyMaxPotentialBlockSize), with the device's context current. Throw dualrt::Error.
    KernelOccupancy occupancy(std::size_t group_size, std::size_t local_bytes) const override;
    std::size_t suggest_group_size(std::size_t local_bytes) const override;
    NativeHandle native_handle() const override;  // CUfunction

    CUfunction function() const { return state_->function; }
    // Lets launches use `bytes` of dynamic shared memory beyond the default 48 KiB
    // (cuFuncSetAttribute); the device's context is current. Throws dualrt::Error.
    void allow_dynamic_shared(std::size_t bytes) const;

private:
    std::shared_ptr<DeviceImpl> device_;
    std::shared_ptr<KernelState> state_;
};

// The modules of one device and their kernels by name. A DeviceImpl member. Built-in modules
// (one fatbin per kernels/cu file) and those of users' bundles (dualrt_add_kernels: fatbins, or
// .cu text for NVRTC) are loaded on first use of one of their kernels; sources given
// at run time are compiled and loaded at once. Modules stay loaded for the device's lifetime. It
// caches KernelState rather than KernelImpl: a KernelImpl holds its device and the device holds
// this cache, so cached KernelImpls would keep every device alive for ever. Thread-safe.
class ProgramCache {
public:
    ProgramCache() = default;
    ProgramCache(const ProgramCache&) = delete;
    ProgramCache& operator=(const ProgramCache&) = delete;

    // The kernel `name` of `device`. Throws Errc::not_found listing the known kernels, or
    // Errc::compile_error when the fatbin holds no code this GPU can run.
    std::shared_ptr<backend::KernelImpl> kernel(const std::shared_ptr<DeviceImpl>& device,
                                                const std::string& name);
    // Compiles `text` with NVRTC for the device's architecture, loads it and returns the names of
    // its kernels (see DeviceImpl::load_source).
    std::vector<std::string> load_source(const std::shared_ptr<DeviceImpl>& device,
                                         const std::string& name, const std::string& text);
    // Unloads every module. Called by ~DeviceImpl with the device's context current, before the
    // context goes. Never throws.
    void clear() noexcept;

private:
    // Loads `image` (a fatbin, CUBIN or PTX) and makes the KernelStates of `kernels`, whose
    // signatures were read from its source, `origin` ("kernels/cu/saxpy.cu"). `rebuild_hint`
    // says what to do when the image has no code for this GPU. The mutex is held.
    void load_module(const DeviceImpl& device, const std::string& origin, const void* image,
                     const std::vector<detail::KernelSignature>& kernels,
                     const std::string& rebuild_hint);
    // Loads the module of the built-in file or user bundle (dualrt_add_kernels) that defines
    // kernel `name`. Throws Errc::not_found, or Errc::invalid_argument when both define it.
    // The mutex is held.
    void load_module_defining(const DeviceImpl& device, const std::string& name);
    // Where an existing kernel of this name comes from, for messages ("a built-in kernel of
    // kernels/cu/saxpy.cu"), or "" when there is none. The mutex is held.
    std::string origin_of(const std::string& kernel) const;

    std::mutex mutex_;  // guards the members below; held while a module loads (not while NVRTC
                        // runs for load_source)
    std::vector<CUmodule> modules_;
    std::map<std::string, std::shared_ptr<KernelState>> kernels_;  // by kernel name
    std::map<std::string, std::string> loaded_;  // source name by kernel name, for load_source
};

}  // namespace dualrt::cuda
