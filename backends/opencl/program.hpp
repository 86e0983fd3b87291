// Programs and kernels: the built-in .cl files embedded in the module, built once per device, and
// sources loaded at run time (Device::load_sources), all found by kernel name.
#pragma once

#include "backend/backend.hpp"
#include "cl.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dualrt::opencl {

class DeviceImpl;

// One kernel of one device, shared by every KernelImpl handle of that name on that device.
struct KernelState {
    std::string name;
    cl::Kernel kernel;
    std::vector<backend::ParamInfo> params;
    std::size_t max_work_group_size = 0;  // CL_KERNEL_WORK_GROUP_SIZE on this device
    // For Kernel::occupancy, read when the kernel is created: CL_KERNEL_LOCAL_MEM_SIZE counts
    // the __local arguments set so far too, so only then does it say what the kernel declares.
    std::size_t preferred_multiple = 0;  // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
    std::size_t static_local_bytes = 0;  // CL_KERNEL_LOCAL_MEM_SIZE, before any argument
    std::size_t private_bytes = 0;       // CL_KERNEL_PRIVATE_MEM_SIZE, per work-item
    // clSetKernelArg is not thread-safe on one cl_kernel, and the arguments of a launch are those
    // set when it is enqueued: QueueImpl::launch holds this across setting the arguments and
    // clEnqueueNDRangeKernel.
    std::mutex launch_mutex;
};

// The public Kernel's implementation: a handle on a KernelState that keeps its device alive.
class KernelImpl final : public backend::KernelImpl {
public:
    KernelImpl(std::shared_ptr<DeviceImpl> device, std::shared_ptr<KernelState> state);

    const backend::DeviceImpl& device() const override;
    const std::string& name() const override { return state_->name; }
    const std::vector<backend::ParamInfo>& params() const override { return state_->params; }
    std::size_t max_work_group_size() const override { return state_->max_work_group_size; }
    // The kernel's limits as OpenCL reports them; OpenCL has no query for how many work-groups
    // a compute unit holds, so the occupancy fields stay empty.
    KernelOccupancy occupancy(std::size_t group_size, std::size_t local_bytes) const override;
    // A heuristic (OpenCL cannot say what fits a compute unit): see program.cpp.
    std::size_t suggest_group_size(std::size_t local_bytes) const override;
    NativeHandle native_handle() const override;  // cl_kernel, owned by this object's state

    KernelState& state() const { return *state_; }

private:
    std::shared_ptr<DeviceImpl> device_;
    std::shared_ptr<KernelState> state_;
};

// The programs of one device, built from the embedded kernel table (one program per .cl file)
// and from the bundles users' programs register (dualrt_add_kernels)
// with "-cl-std=CL1.2 -cl-kernel-arg-info", and their kernels by name. A DeviceImpl member.
// Programs are built on first use and kept for the device's lifetime; a failed build is not cached,
// so asking again rebuilds (and fails again with the same log). Sources loaded at run time are
// built with the same options and their kernels registered at once, next to the built-in ones.
// It caches KernelState rather than KernelImpl: a KernelImpl holds its device and the device holds
// this cache, so cached KernelImpls would keep every device alive for ever.
class ProgramCache {
public:
    // The kernel `name` of `device`, building the program of the file that defines it on first
    // use (blocking; concurrent callers wait for the build). Throws Errc::not_found listing the
    // known kernels, or Errc::compile_error with the full build log. Thread-safe.
    std::shared_ptr<backend::KernelImpl> kernel(const std::shared_ptr<DeviceImpl>& device,
                                                const std::string& name);

    // Builds `text` (OpenCL C) for `device` and registers its kernels, which kernel() finds from
    // then on; returns their names. `source_name` names the source in messages. Throws
    // Errc::compile_error with the full build log, or Errc::invalid_argument when the source
    // defines no kernel or a kernel that exists already (built-in or loaded before); then nothing
    // of it is registered. Thread-safe; the build runs without blocking other lookups.
    std::vector<std::string> load(const DeviceImpl& device, const std::string& source_name,
                                  const std::string& text);

private:
    // The program built from `text` for `key` (a built-in file's stem, or "user:" and a user
    // file's key), building it on first use; `what` names the file in messages. The mutex is held.
    const cl::Program& program(const DeviceImpl& device, const std::string& key,
                               const std::string& text, const std::string& what);
    // The state of kernel `name` from a built-in file or a user's bundle (dualrt_add_kernels),
    // building its program. Throws Errc::not_found, or Errc::invalid_argument when both define
    // it. The mutex is held.
    std::shared_ptr<KernelState> build_kernel(const DeviceImpl& device, const std::string& name);
    void refuse_existing(const DeviceImpl& device, const std::string& source_name,
                         const std::vector<std::string>& names) const;

    std::mutex mutex_;  // guards the maps, and is held during the build of a built-in program
    std::map<std::string, cl::Program> programs_;                  // by key (see program())
    std::map<std::string, std::shared_ptr<KernelState>> kernels_;  // by kernel name
    std::map<std::string, std::string> loaded_;  // source name by kernel name, for load()ed ones
};

}  // namespace dualrt::opencl
