// Device memory another API imports in place (alloc_shared, shared_memory.hpp): allocated through
// CUDA's virtual memory management with POSIX file descriptor handles, because memory from
// cuMemAlloc cannot be exported. NVIDIA's OpenCL imports the descriptor
// (cl_khr_external_memory_opaque_fd) and addresses the same bytes.
#include "buffer.hpp"
#include "check.hpp"
#include "context.hpp"
#include "device.hpp"

#include "support/raise.hpp"

namespace dualrt::cuda {
namespace {

CUmemAllocationProp exportable_properties(CUdevice device) {
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = static_cast<int>(device);
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    return prop;
}

}  // namespace

std::string DeviceImpl::cannot_export_memory() const {
    const auto device = static_cast<CUdevice>(native_handle());
    int vmm = 0, fd = 0;
    if (cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                             device) != CUDA_SUCCESS ||
        vmm == 0)
        return "the device has no virtual memory management "
               "(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), which exporting needs";
    if (cuDeviceGetAttribute(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                             device) != CUDA_SUCCESS ||
        fd == 0)
        return "the device cannot export memory as POSIX file descriptors "
               "(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)";
    return {};
}

backend::DeviceImpl::ExportedMemory DeviceImpl::export_memory(std::size_t bytes) {
    if (const std::string why = cannot_export_memory(); !why.empty())
        detail::raise_argument("alloc_shared", describe() + ": " + why, Errc::unavailable);
    ExportedMemory exported;
    auto buffer = std::make_shared<BufferImpl>(self(), bytes, BufferImpl::exportable);
    exported.fd = buffer->export_fd();
    exported.buffer = std::move(buffer);
    return exported;
}

BufferImpl::BufferImpl(std::shared_ptr<DeviceImpl> device, std::size_t bytes, Exportable)
    : device_(std::move(device)), bytes_(bytes) {
    ScopedContext current(device_->context());
    const CUmemAllocationProp prop =
        exportable_properties(static_cast<CUdevice>(device_->native_handle()));
    const std::string what = "shared device buffer of " + detail::format_bytes(bytes) + " on " +
                             device_->describe();
    std::size_t granularity = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&granularity, &prop,
                                           CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
             what);
    mapped_bytes_ = (bytes + granularity - 1) / granularity * granularity;
    CU_CHECK_ALLOC(cuMemCreate(&allocation_, mapped_bytes_, &prop, 0), what);
    // From here the destructor does not run for a half-built object: undo by hand.
    CUresult step = cuMemAddressReserve(&address_, mapped_bytes_, 0, 0, 0);
    if (step == CUDA_SUCCESS) {
        step = cuMemMap(address_, mapped_bytes_, 0, allocation_, 0);
        if (step == CUDA_SUCCESS) {
            CUmemAccessDesc access = {};
            access.location = prop.location;
            access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            step = cuMemSetAccess(address_, mapped_bytes_, &access, 1);
            if (step != CUDA_SUCCESS) cuMemUnmap(address_, mapped_bytes_);
        }
        if (step != CUDA_SUCCESS) cuMemAddressFree(address_, mapped_bytes_);
    }
    if (step != CUDA_SUCCESS) {
        cuMemRelease(allocation_);
        raise_cu_error(step, "cuMemAddressReserve/cuMemMap/cuMemSetAccess",
                       what + ", mapping it into the context", __FILE__, __LINE__,
                       CallKind::allocation);
    }
}

int BufferImpl::export_fd() const {
    int fd = -1;
    CU_CHECK(cuMemExportToShareableHandle(&fd, allocation_,
                                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
             "exporting a shared device buffer of " + detail::format_bytes(bytes_) + " on " +
                 device_->describe());
    return fd;
}

void BufferImpl::free_exportable() noexcept {
    const std::string what =
        "a shared device buffer of " + detail::format_bytes(bytes_) + " on " + device_->describe();
    // Unmapping does not wait for kernels still using the memory, as cuMemFree does.
    CU_CHECK_NOTHROW(cuCtxSynchronize(), "waiting for the work on " + what);
    CU_CHECK_NOTHROW(cuMemUnmap(address_, mapped_bytes_), "unmapping " + what);
    CU_CHECK_NOTHROW(cuMemAddressFree(address_, mapped_bytes_), "freeing the addresses of " + what);
    CU_CHECK_NOTHROW(cuMemRelease(allocation_), "releasing " + what);
}

}  // namespace dualrt::cuda
