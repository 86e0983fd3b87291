// Memory another API exported, used in place (alloc_shared, shared_memory.hpp): the CUDA device of
// the same GPU exports a POSIX file descriptor, and clCreateBufferWithProperties imports it
// (cl_khr_external_memory_opaque_fd). On NVIDIA's driver 580 the buffer takes the descriptor
// over and closes it when released, and a kernel on it runs at the speed of one on the context's
// own buffer.
#include "check.hpp"
#include "device.hpp"
#include "support/raise.hpp"

#include <unistd.h>

#include <sstream>
#include <string>

namespace dualrt::opencl {
namespace {

bool offers(const std::string& extensions, const std::string& name) {
    std::istringstream words(extensions);
    std::string word;
    while (words >> word)
        if (word == name) return true;
    return false;
}

}  // namespace

std::string DeviceImpl::cannot_import_memory() const {
    const std::string extensions = CL_CHECK(cl_device().getInfo<CL_DEVICE_EXTENSIONS>(),
                                            "reading the extensions of " + describe());
    if (!offers(extensions, "cl_khr_external_memory_opaque_fd"))
        return "the OpenCL device does not offer cl_khr_external_memory_opaque_fd";
    return {};
}

backend::DeviceImpl::ImportLimit DeviceImpl::largest_import() const {
    // NVIDIA's driver 580 crashes (SIGSEGV inside clCreateBufferWithProperties) importing 1 GiB
    // from CUDA, with or without peer access, on an H100 of a two-GPU machine; 256 MiB imports
    // work (docs/RELIABILITY.md). Sizes in between were not tried, so the limit is the largest
    // size seen to work.
    if (info().vendor.find("NVIDIA") == std::string::npos) return {};
    return {std::size_t{256} << 20,
            "NVIDIA's OpenCL driver 580 crashed importing 1 GiB; 256 MiB is the largest import "
            "seen to work"};
}

std::shared_ptr<backend::BufferImpl> DeviceImpl::import_memory(int fd, std::size_t bytes) {
    const std::string why = cannot_import_memory();
    if (!why.empty()) {
        close(fd);
        detail::raise_argument("alloc_shared", describe() + ": " + why, Errc::unavailable);
    }
    const cl_mem_properties properties[] = {
        CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, static_cast<cl_mem_properties>(fd),
        CL_DEVICE_HANDLE_LIST_KHR, reinterpret_cast<cl_mem_properties>(cl_device()()),
        CL_DEVICE_HANDLE_LIST_END_KHR, 0};
    cl_int status = CL_SUCCESS;
    cl_mem memory = clCreateBufferWithProperties(context()(), properties, CL_MEM_READ_WRITE, bytes,
                                                 nullptr, &status);
    if (status != CL_SUCCESS) {
        close(fd);  // the driver owns the descriptor only once the import succeeded
        raise_cl_error(cl::Error(status, "clCreateBufferWithProperties"),
                       "clCreateBufferWithProperties(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR)",
                       "importing " + detail::format_bytes(bytes) + " of shared memory into " +
                           describe(),
                       __FILE__, __LINE__, CallKind::allocation);
    }
    return wrap_buffer(reinterpret_cast<NativeHandle>(memory), bytes, Ownership::adopt);
}

}  // namespace dualrt::opencl
