// Turning cl::Error into dualrt::Error: the error-code table and the report built on failure.
#include "check.hpp"

#include "support/log.hpp"
#include "support/raise.hpp"

#include <cstring>
#include <string>
#include <utility>

namespace dualrt::opencl {
namespace {

struct CodeName {
    cl_int code;
    const char* name;
};

// Every error code of OpenCL 3.0 and of the Khronos/vendor extensions in the Khronos headers, by
// number so that the table does not depend on the header version installed.
constexpr CodeName code_names[] = {
    {0, "CL_SUCCESS"},
    {-1, "CL_DEVICE_NOT_FOUND"},
    {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"},
    {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"},
    {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"},
    {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"},
    {-31, "CL_INVALID_DEVICE_TYPE"},
    {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"},
    {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {-40, "CL_INVALID_IMAGE_SIZE"},
    {-41, "CL_INVALID_SAMPLER"},
    {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"},
    {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"},
    {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"},
    {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
    {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {-69, "CL_INVALID_PIPE_SIZE"},
    {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-71, "CL_INVALID_SPEC_ID"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    {-1002, "CL_INVALID_D3D10_DEVICE_KHR"},
    {-1003, "CL_INVALID_D3D10_RESOURCE_KHR"},
    {-1004, "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR"},
    {-1005, "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1006, "CL_INVALID_D3D11_DEVICE_KHR"},
    {-1007, "CL_INVALID_D3D11_RESOURCE_KHR"},
    {-1008, "CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR"},
    {-1009, "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1010, "CL_INVALID_DX9_MEDIA_ADAPTER_KHR"},
    {-1011, "CL_INVALID_DX9_MEDIA_SURFACE_KHR"},
    {-1012, "CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR"},
    {-1013, "CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR"},
    {-1057, "CL_DEVICE_PARTITION_FAILED_EXT"},
    {-1058, "CL_INVALID_PARTITION_COUNT_EXT"},
    {-1059, "CL_INVALID_PARTITION_NAME_EXT"},
    {-1092, "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1093, "CL_INVALID_EGL_OBJECT_KHR"},
    {-1094, "CL_INVALID_ACCELERATOR_INTEL"},
    {-1095, "CL_INVALID_ACCELERATOR_TYPE_INTEL"},
    {-1096, "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL"},
    {-1097, "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL"},
    {-1098, "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL"},
    {-1099, "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL"},
    {-1100, "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL"},
    {-1101, "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL"},
    {-1108, "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM"},
    {-1121, "CL_CONTEXT_TERMINATED_KHR"},
    {-1138, "CL_INVALID_COMMAND_BUFFER_KHR"},
    {-1139, "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR"},
    {-1140, "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR"},
    {-1141, "CL_INVALID_MUTABLE_COMMAND_KHR"},
    {-1142, "CL_INVALID_SEMAPHORE_KHR"},
};

// NVIDIA's OpenCL returns this undocumented code when a kernel accessed memory out of bounds.
constexpr cl_int nvidia_illegal_access = -9999;

// Codes a wait returns when a command failed on the device. Measured on NVIDIA's OpenCL (580,
// H200): a kernel's wild write makes clWaitForEvents return -9999 and clFinish
// CL_INVALID_COMMAND_QUEUE, and every later command on the device CL_OUT_OF_RESOURCES.
bool command_failed(cl_int code) {
    return code == nvidia_illegal_access || code == CL_INVALID_COMMAND_QUEUE ||
           code == CL_OUT_OF_RESOURCES;
}

Errc errc_for(cl_int code, CallKind kind) {
    if (kind == CallKind::synchronization && command_failed(code)) return Errc::device_lost;
    switch (code) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
        return Errc::out_of_memory;
    case CL_OUT_OF_RESOURCES:
    case CL_INVALID_BUFFER_SIZE:
        return kind == CallKind::allocation ? Errc::out_of_memory : Errc::backend_failure;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILE_PROGRAM_FAILURE:
    case CL_LINK_PROGRAM_FAILURE:
        return Errc::compile_error;
    default:
        return Errc::backend_failure;
    }
}

// "backends/opencl/queue.cpp" rather than the absolute path of the build machine.
const char* short_file(const char* file) {
    const char* tail = std::strstr(file, "backends/opencl/");
    return tail != nullptr ? tail : file;
}

// Every device's build log (one device per program in this backend), never empty.
std::string build_logs(const cl::BuildError& error) {
    std::string text;
    for (const auto& [device, log] : error.getBuildLog()) {
        static_cast<void>(device);
        if (!text.empty()) text += "\n";
        text += log;
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        return "(the OpenCL compiler gave no build log)";
    }
    return text;
}

}  // namespace

const char* error_name(cl_int code) noexcept {
    for (const auto& entry : code_names) {
        if (entry.code == code) return entry.name;
    }
    return "unknown OpenCL error";
}

void raise_cl_error(const cl::Error& error, const char* call, std::string context,
                    const char* file, int line, CallKind kind) {
    const cl_int code = error.err();
    ErrorInfo info;
    info.errc = errc_for(code, kind);
    info.backend = "opencl";
    info.call = call;
    info.code = code;
    info.code_name = error_name(code);
    info.context = std::move(context);
    // The core's message already shows the code and its name next to `call`.
    info.detail = std::string(error.what()) + " (called at " + short_file(file) + ":" +
                  std::to_string(line) + ")";
    // Creating a context touches no kernel: there NVIDIA's -9999 means the driver refused the
    // context, as it does under CUDA MPS (measured: every clCreateContext fails while an MPS
    // daemon runs, NVIDIA's OpenCL having no MPS client).
    if (code == nvidia_illegal_access && std::string(call).find("Context") != std::string::npos) {
        info.errc = Errc::unavailable;
        info.detail += "; NVIDIA's driver refused to create an OpenCL context (it does so while "
                       "a CUDA MPS daemon runs, which its OpenCL cannot use: stop MPS, or use "
                       "the CUDA backend)";
        detail::raise(std::move(info));
    }
    if (code == nvidia_illegal_access) {
        info.errc = Errc::device_lost;
        info.detail += "; NVIDIA reports -9999 when a kernel reads or writes outside a buffer";
    }
    if (info.errc == Errc::device_lost) {
        info.detail += "; a command failed on the device, most often a kernel that read or wrote "
                       "outside a buffer: NVIDIA's driver then fails every later command on the "
                       "device (run the program with DUALRT_SYNC=1, or its CUDA twin under "
                       "compute-sanitizer, to find the faulting access)";
    }
    if (const auto* build = dynamic_cast<const cl::BuildError*>(&error)) {
        info.detail += "\nbuild log:\n" + build_logs(*build);
    }
    detail::raise(std::move(info));
}

void log_cl_error(const cl::Error& error, const char* call, const std::string& context,
                  const char* file, int line) noexcept {
    try {
        detail::log().error("OpenCL: {} returned {} ({}) in {} [{}] at {}:{}; ignored "
                            "(cannot throw here)",
                            error.what(), error_name(error.err()), error.err(), call, context,
                            short_file(file), line);
    } catch (...) {
        // Logging itself failed (e.g. DUALRT_LOG holds an unknown level): nothing else to do.
    }
}

void log_cl_failure(const char* what, const char* call, const char* file, int line) noexcept {
    try {
        detail::log().error("OpenCL: {} in {} at {}:{}; ignored (cannot throw here)", what, call,
                            short_file(file), line);
    } catch (...) {
        // Logging itself failed: nothing else to do.
    }
}

}  // namespace dualrt::opencl
