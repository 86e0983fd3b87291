// DeviceImpl: what the driver says about a device, its primary context, and the factory methods
// for its children.
#include "device.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "context.hpp"
#include "mapped_buffer.hpp"
#include "queue.hpp"
#include "recording.hpp"
#include "support/log.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

namespace dualrt::cuda {
namespace {

int attribute(CUdevice device, CUdevice_attribute which, const char* name,
              const std::string& context) {
    int value = 0;
    CU_CHECK(cuDeviceGetAttribute(&value, which, device), context + ", reading " + name);
    return value;
}

// "13.0" from cuDriverGetVersion's 13000.
std::string cuda_version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The kernel module's version ("580.159.04"), which NVIDIA's OpenCL reports as its driver
// version, so that both backends of one GPU show the same; "" when it cannot be read.
std::string kernel_driver_version() {
    std::ifstream file("/proc/driver/nvidia/version");
    std::string line;
    if (!std::getline(file, line)) return "";
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu ..." or
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...":
    // the first word made of digits and dots after "Module".
    const auto at = line.find("Module");
    if (at == std::string::npos) return "";
    std::istringstream words(line.substr(at));
    std::string word;
    while (words >> word) {
        const bool digits_and_dots = word.find_first_not_of("0123456789.") == std::string::npos;
        if (digits_and_dots && word.find('.') != std::string::npos &&
            std::isdigit(static_cast<unsigned char>(word[0])) != 0)
            return word;
    }
    return "";
}

std::string pci_text(int domain, int bus, int device) {
    char text[32];
    std::snprintf(text, sizeof text, "%04x:%02x:%02x.0", static_cast<unsigned>(domain),
                  static_cast<unsigned>(bus), static_cast<unsigned>(device));
    return text;
}

}  // namespace

DeviceImpl::DeviceImpl(CUdevice device, int index, int driver_version) : device_(device) {
    info_.backend = Backend::cuda;
    info_.index = index;
    info_.platform = "CUDA";
    info_.vendor = "NVIDIA Corporation";
    info_.type = DeviceType::gpu;
    const std::string context = "reading the properties of CUDA device " + std::to_string(index);

    char name[256] = {};
    CU_CHECK(cuDeviceGetName(name, sizeof name - 1, device_), context);
    info_.name = name;
    const std::string kernel_module = kernel_driver_version();
    info_.driver_version = (kernel_module.empty() ? "" : kernel_module + " ") + "(CUDA " +
                           cuda_version_text(driver_version) + ")";

    const auto get = [&](CUdevice_attribute which, const char* what) {
        return attribute(device_, which, what, context);
    };
    const int major = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "the compute capability");
    const int minor = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "the compute capability");
    compute_capability_ = major * 10 + minor;
    info_.architecture = "sm_" + std::to_string(compute_capability_);

    std::size_t total = 0;
    CU_CHECK(cuDeviceTotalMem(&total, device_), context + ", reading the memory size");
    info_.global_memory_bytes = total;
    // The default per-block limit (48 KiB), which NVIDIA's OpenCL reports as its local memory;
    // more needs an opt-in per kernel that OpenCL does not offer.
    info_.local_memory_bytes = static_cast<std::uint64_t>(
        get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "the shared memory per block"));
    info_.compute_units =
        static_cast<std::uint32_t>(get(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "the SM count"));
    info_.max_work_group_size = static_cast<std::size_t>(
        get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "the threads per block"));
    info_.max_work_item_sizes = {
        static_cast<std::size_t>(get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "the block size")),
        static_cast<std::size_t>(get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "the block size")),
        static_cast<std::size_t>(get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, "the block size"))};
    max_grid_ = {
        static_cast<std::size_t>(get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "the grid size")),
        static_cast<std::size_t>(get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "the grid size")),
        static_cast<std::size_t>(get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "the grid size"))};
    warp_size_ = static_cast<std::size_t>(get(CU_DEVICE_ATTRIBUTE_WARP_SIZE, "the warp size"));
    max_threads_per_sm_ = static_cast<std::size_t>(
        get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "the threads per SM"));
    info_.copy_engines = get(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, "the copy engine count");
    // An integrated GPU (Tegra, Jetson) works in the host's own DRAM.
    info_.shares_host_memory = get(CU_DEVICE_ATTRIBUTE_INTEGRATED, "whether it is integrated") != 0;
    info_.can_map_host_memory =
        get(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, "whether it can map host memory") != 0;
    info_.recording = RecordingPath::graph;
    info_.pci_bus_id = pci_text(get(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, "the PCI domain"),
                                get(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, "the PCI bus"),
                                get(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, "the PCI device"));
}

DeviceImpl::DeviceImpl(CUdevice device, int index, int driver_version, WrappedContext wrapped)
    : DeviceImpl(device, index, driver_version) {
    info_.wrapped_context = true;
    if (wrapped.ownership == Ownership::borrow)
        context_origin_ = ContextOrigin::borrowed;
    else
        context_origin_ = wrapped.primary ? ContextOrigin::adopted_primary : ContextOrigin::adopted;
    context_.store(wrapped.context, std::memory_order_release);
}

DeviceImpl::~DeviceImpl() {
    CUcontext context = context_.load();
    if (context == nullptr) return;
    {
        // Modules belong to the context: unload them while it still exists.
        ScopedContext current(context, ScopedContext::no_throw);
        programs_.clear();
    }
    switch (context_origin_) {
    case ContextOrigin::primary:
    case ContextOrigin::adopted_primary:
        CU_CHECK_NOTHROW(cuDevicePrimaryCtxRelease(device_),
                         "releasing the primary context of " + describe());
        break;
    case ContextOrigin::adopted:
        CU_CHECK_NOTHROW(cuCtxDestroy(context), "destroying the adopted context of " + describe());
        break;
    case ContextOrigin::borrowed:
        break;  // the application's: never released here
    }
}

CUcontext DeviceImpl::context() const {
    if (CUcontext ready = context_.load(std::memory_order_acquire)) return ready;
    std::lock_guard<std::mutex> lock(context_mutex_);
    if (context_.load(std::memory_order_relaxed) == nullptr) {
        CUcontext retained = nullptr;
        CU_CHECK(cuDevicePrimaryCtxRetain(&retained, device_),
                 "retaining the primary context of " + describe());
        allow_binding(retained);
        context_.store(retained, std::memory_order_release);
        detail::log().debug("CUDA: retained the primary context of {}", describe());
    }
    return context_.load(std::memory_order_relaxed);
}

std::string DeviceImpl::describe() const {
    return "CUDA device " + std::to_string(info_.index) + " '" + info_.name + "'" +
           (info_.wrapped_context ? " (wrapped context)" : "");
}

std::shared_ptr<backend::BufferImpl> DeviceImpl::create_buffer(std::size_t bytes) {
    return std::make_shared<BufferImpl>(self(), bytes);
}

std::shared_ptr<backend::HostBufferImpl> DeviceImpl::create_host_buffer(std::size_t bytes) {
    return std::make_shared<HostBufferImpl>(self(), bytes);
}

std::shared_ptr<backend::HostBufferImpl> DeviceImpl::register_host_memory(void* data,
                                                                          std::size_t bytes) {
    return std::make_shared<HostBufferImpl>(self(), data, bytes,
                                            HostBufferImpl::register_in_place);
}

bool DeviceImpl::can_wait_on(const backend::DeviceImpl& other) const {
    // cuStreamWaitEvent orders a stream after an event of any context, on any device.
    return other.info().backend == Backend::cuda;
}

bool DeviceImpl::can_copy_peer(const backend::DeviceImpl& other) const {
    if (other.info().backend != Backend::cuda || &other == this) return false;
    const CUdevice peer = static_cast<const DeviceImpl&>(other).cu_device();
    std::lock_guard<std::mutex> lock(peer_mutex_);
    const auto known = can_access_peer_.find(peer);
    if (known != can_access_peer_.end()) return known->second;
    int to = 0;
    int from = 0;
    CU_CHECK(cuDeviceCanAccessPeer(&to, device_, peer), "asking whether " + describe() +
                                                            " reaches " + other.info().name +
                                                            " as a peer");
    CU_CHECK(cuDeviceCanAccessPeer(&from, peer, device_), "asking whether " + other.info().name +
                                                              " reaches " + describe() +
                                                              " as a peer");
    return can_access_peer_[peer] = to != 0 && from != 0;
}

void DeviceImpl::enable_peer_access(const DeviceImpl& other) const {
    {
        std::lock_guard<std::mutex> lock(peer_mutex_);
        if (peer_enabled_.count(other.cu_device()) != 0) return;
    }
    const auto enable = [](const DeviceImpl& from, const DeviceImpl& to) {
        ScopedContext current(from.context());
        const CUresult result = cuCtxEnablePeerAccess(to.context(), 0);
        if (result == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) return;
        CU_CHECK(result, "enabling peer access from " + from.describe() + " to " + to.describe());
    };
    enable(*this, other);
    enable(other, *this);
    std::lock_guard<std::mutex> lock(peer_mutex_);
    peer_enabled_.insert(other.cu_device());
}

std::shared_ptr<backend::MappedBufferImpl> DeviceImpl::create_mapped_buffer(std::size_t bytes) {
    return std::make_shared<MappedBufferImpl>(self(), bytes);
}

std::shared_ptr<backend::QueueImpl> DeviceImpl::create_queue(bool timed) {
    return std::make_shared<QueueImpl>(self(), timed);
}

std::unique_ptr<backend::RecorderImpl> DeviceImpl::create_recorder(backend::QueueImpl&) {
    return make_recorder(self());
}

std::shared_ptr<backend::KernelImpl> DeviceImpl::kernel(const std::string& name) {
    return programs_.kernel(self(), name);
}

std::vector<std::string> DeviceImpl::load_source(const std::string& name,
                                                 const std::string& text) {
    return programs_.load_source(self(), name, text);
}

NativeHandle DeviceImpl::native_handle() const { return static_cast<NativeHandle>(device_); }

NativeHandle DeviceImpl::native_context() const {
    return reinterpret_cast<NativeHandle>(context());
}

}  // namespace dualrt::cuda
