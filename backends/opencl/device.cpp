// DeviceImpl: what clGetDeviceInfo says about a device, its lazily created context, and the
// factory methods for its children.
#include "device.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "mapped_buffer.hpp"
#include "queue.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>

namespace dualrt::opencl {
namespace {

bool has_extension(const std::string& extensions, const std::string& name) {
    std::istringstream words(extensions);
    std::string word;
    while (words >> word) {
        if (word == name) return true;
    }
    return false;
}

// A query that older drivers may not know: nullopt when the driver answers CL_INVALID_VALUE
// (the query is not supported there). Other failures throw.
template <typename T>
std::optional<T> optional_info(const cl::Device& device, cl_device_info query,
                               const std::string& context) {
    T value{};
    try {
        device.getInfo(query, &value);
    } catch (const cl::Error& error) {
        if (error.err() == CL_INVALID_VALUE) return std::nullopt;
        raise_cl_error(error, "device.getInfo(query, &value)", context, __FILE__, __LINE__,
                       CallKind::other);
    }
    return value;
}

std::string format_pci(unsigned domain, unsigned bus, unsigned device, unsigned function) {
    char text[32];
    std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", domain, bus, device, function);
    return text;
}

// "0000:bb:dd.f" from cl_khr_pci_bus_info, else from NVIDIA's attribute query, else nullopt.
std::optional<std::string> pci_bus_id(const cl::Device& device, const std::string& extensions,
                                      const std::string& context) {
    if (has_extension(extensions, "cl_khr_pci_bus_info")) {
        const auto info =
            optional_info<cl_device_pci_bus_info_khr>(device, CL_DEVICE_PCI_BUS_INFO_KHR, context);
        if (info) {
            return format_pci(info->pci_domain, info->pci_bus, info->pci_device,
                              info->pci_function);
        }
    }
    if (has_extension(extensions, "cl_nv_device_attribute_query")) {
        const auto bus = optional_info<cl_uint>(device, CL_DEVICE_PCI_BUS_ID_NV, context);
        const auto slot = optional_info<cl_uint>(device, CL_DEVICE_PCI_SLOT_ID_NV, context);
        // The domain query exists since CUDA 10.2; older drivers have only domain 0.
        const auto domain = optional_info<cl_uint>(device, CL_DEVICE_PCI_DOMAIN_ID_NV, context);
        if (bus && slot) {
            // NVIDIA does not document the slot's encoding; hwloc and others read it as
            // device << 3 | function, as in a PCI devfn byte.
            return format_pci(domain.value_or(0), *bus & 0xffu, *slot >> 3, *slot & 0x7u);
        }
    }
    return std::nullopt;
}

// CL_DEVICE_HOST_UNIFIED_MEMORY: whether the device works in the host's memory. Deprecated by
// OpenCL 2.0, but drivers still answer it. A failure counts as "no": the answer only feeds the
// advice of DeviceInfo::zero_copy_worthwhile, never what is correct.
bool host_unified_memory(const cl::Device& device, const std::string& context) {
    cl_bool value = CL_FALSE;
    try {
        device.getInfo(CL_DEVICE_HOST_UNIFIED_MEMORY, &value);
    } catch (const cl::Error& error) {
        detail::log().debug("OpenCL: {}: CL_DEVICE_HOST_UNIFIED_MEMORY failed with {} ({}); "
                            "taken as false",
                            context, error_name(error.err()), error.err());
        return false;
    }
    return value == CL_TRUE;
}

DeviceType type_of(cl_device_type type) {
    if ((type & CL_DEVICE_TYPE_GPU) != 0) return DeviceType::gpu;
    if ((type & CL_DEVICE_TYPE_CPU) != 0) return DeviceType::cpu;
    if ((type & CL_DEVICE_TYPE_ACCELERATOR) != 0) return DeviceType::accelerator;
    return DeviceType::other;
}

}  // namespace

DeviceImpl::DeviceImpl(cl::Device device, std::string platform_name, int index)
    : device_(std::move(device)) {
    info_.backend = Backend::opencl;
    info_.index = index;
    info_.platform = std::move(platform_name);
    pocl_ = info_.platform.find("Portable Computing Language") != std::string::npos;
    const std::string context = "reading the properties of OpenCL device " +
                                std::to_string(index) + " of platform '" + info_.platform + "'";
    info_.name = CL_CHECK(device_.getInfo<CL_DEVICE_NAME>(), context);
    info_.vendor = CL_CHECK(device_.getInfo<CL_DEVICE_VENDOR>(), context);
    info_.driver_version = CL_CHECK(device_.getInfo<CL_DRIVER_VERSION>(), context);
    info_.architecture = CL_CHECK(device_.getInfo<CL_DEVICE_VERSION>(), context);
    info_.type = type_of(CL_CHECK(device_.getInfo<CL_DEVICE_TYPE>(), context));
    info_.global_memory_bytes = CL_CHECK(device_.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>(), context);
    info_.local_memory_bytes = CL_CHECK(device_.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>(), context);
    info_.compute_units = CL_CHECK(device_.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>(), context);
    info_.max_work_group_size = CL_CHECK(device_.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>(), context);
    const auto item_sizes = CL_CHECK(device_.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>(), context);
    std::copy_n(item_sizes.begin(), std::min<std::size_t>(item_sizes.size(), 3),
                info_.max_work_item_sizes.begin());

    max_alloc_bytes_ = CL_CHECK(device_.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(), context);
    const cl_uint align_bits = CL_CHECK(device_.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>(), context);
    sub_buffer_alignment_ = std::max<std::size_t>(align_bits / 8, 1);

    // A CPU device runs kernels in the host's memory whatever the query says.
    info_.shares_host_memory =
        info_.type == DeviceType::cpu || host_unified_memory(device_, context);
    info_.can_map_host_memory = true;  // every OpenCL device maps buffers for the host

    const std::string extensions = CL_CHECK(device_.getInfo<CL_DEVICE_EXTENSIONS>(), context);
    info_.pci_bus_id = pci_bus_id(device_, extensions, context);
    recording_ = recording_support(device_, extensions);
    info_.recording = recording_.path;
    if (!recording_.why_not.empty())
        detail::log().debug("OpenCL device {} '{}' records as a command list: {}", index,
                            info_.name, recording_.why_not);
    // copy_engines stays unknown: OpenCL cannot count copy engines, and NVIDIA's
    // CL_DEVICE_GPU_OVERLAP_NV only says that there is at least one (an H200 has three).
}

DeviceImpl::DeviceImpl(cl::Device device, std::string platform_name, int index,
                       cl::Context context)
    : DeviceImpl(std::move(device), std::move(platform_name), index) {
    info_.wrapped_context = true;
    runtime_ = make_runtime(std::move(context));
}

DeviceImpl::Runtime DeviceImpl::make_runtime(cl::Context context) const {
    Runtime created;
    created.context = std::move(context);
    created.internal_queue =
        CL_CHECK(cl::CommandQueue(created.context, device_, cl::QueueProperties::None),
                 "creating the internal queue of " + describe());
    cl::UserEvent finished =
        CL_CHECK(cl::UserEvent(created.context), "creating a user event on " + describe());
    CL_CHECK(finished.setStatus(CL_COMPLETE), "completing a user event on " + describe());
    created.marker_wait_list.push_back(std::move(finished));
    return created;
}

const DeviceImpl::Runtime& DeviceImpl::runtime() const {
    std::lock_guard<std::mutex> lock(runtime_mutex_);
    if (!runtime_) {
        runtime_ = make_runtime(
            CL_CHECK(cl::Context(device_), "creating the context of " + describe()));
        detail::log().debug("OpenCL: created the context of {}", describe());
    }
    return *runtime_;
}

const cl::Context& DeviceImpl::context() const { return runtime().context; }

const cl::CommandQueue& DeviceImpl::internal_queue() const { return runtime().internal_queue; }

const std::vector<cl::Event>& DeviceImpl::marker_wait_list() const {
    return runtime().marker_wait_list;
}

std::string DeviceImpl::describe() const {
    return "OpenCL device " + std::to_string(info_.index) + " '" + info_.name + "'" +
           (info_.wrapped_context ? " (wrapped context)" : "");
}

void DeviceImpl::check_allocation_size(std::size_t bytes, const char* what) const {
    if (bytes <= max_alloc_bytes_) return;
    ErrorInfo info;
    info.errc = Errc::out_of_memory;
    info.backend = "opencl";
    info.call = "clCreateBuffer";
    info.context = describe();
    info.detail = std::string("a ") + what + " of " + detail::format_bytes(bytes) +
                  " exceeds the largest single allocation this device allows: "
                  "CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                  detail::format_bytes(static_cast<std::size_t>(max_alloc_bytes_));
    detail::raise(std::move(info));
}

std::unique_ptr<backend::RecorderImpl> DeviceImpl::create_recorder(backend::QueueImpl& queue) {
    // The core hands a device only its own queues.
    return make_recorder(self(), static_cast<QueueImpl&>(queue).shared_from_this(),
                         recording_.api);
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

std::shared_ptr<backend::MappedBufferImpl> DeviceImpl::create_mapped_buffer(std::size_t bytes) {
    return std::make_shared<MappedBufferImpl>(self(), bytes);
}

std::shared_ptr<backend::QueueImpl> DeviceImpl::create_queue(bool timed) {
    return std::make_shared<QueueImpl>(self(), timed);
}

std::shared_ptr<backend::KernelImpl> DeviceImpl::kernel(const std::string& name) {
    return programs_.kernel(self(), name);
}

std::vector<std::string> DeviceImpl::load_source(const std::string& name,
                                                 const std::string& text) {
    return programs_.load(*this, name, text);
}

NativeHandle DeviceImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(device_());
}

NativeHandle DeviceImpl::native_context() const {
    return reinterpret_cast<NativeHandle>(context()());
}

}  // namespace dualrt::opencl
