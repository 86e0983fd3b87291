// Error checks, object creation and the small helpers of the OpenCL baseline.
#include "native_opencl.hpp"

#include <dualrt/error.hpp>

#include <utility>

namespace dualrt::bench::opencl {

const char* error_name(cl_int code) {
    switch (code) {
#define NAME(c) \
    case c: return #c;
        NAME(CL_SUCCESS)
        NAME(CL_DEVICE_NOT_FOUND)
        NAME(CL_DEVICE_NOT_AVAILABLE)
        NAME(CL_COMPILER_NOT_AVAILABLE)
        NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME(CL_OUT_OF_RESOURCES)
        NAME(CL_OUT_OF_HOST_MEMORY)
        NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
        NAME(CL_MEM_COPY_OVERLAP)
        NAME(CL_IMAGE_FORMAT_MISMATCH)
        NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        NAME(CL_BUILD_PROGRAM_FAILURE)
        NAME(CL_MAP_FAILURE)
        NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        NAME(CL_INVALID_VALUE)
        NAME(CL_INVALID_DEVICE_TYPE)
        NAME(CL_INVALID_PLATFORM)
        NAME(CL_INVALID_DEVICE)
        NAME(CL_INVALID_CONTEXT)
        NAME(CL_INVALID_QUEUE_PROPERTIES)
        NAME(CL_INVALID_COMMAND_QUEUE)
        NAME(CL_INVALID_HOST_PTR)
        NAME(CL_INVALID_MEM_OBJECT)
        NAME(CL_INVALID_BINARY)
        NAME(CL_INVALID_BUILD_OPTIONS)
        NAME(CL_INVALID_PROGRAM)
        NAME(CL_INVALID_PROGRAM_EXECUTABLE)
        NAME(CL_INVALID_KERNEL_NAME)
        NAME(CL_INVALID_KERNEL_DEFINITION)
        NAME(CL_INVALID_KERNEL)
        NAME(CL_INVALID_ARG_INDEX)
        NAME(CL_INVALID_ARG_VALUE)
        NAME(CL_INVALID_ARG_SIZE)
        NAME(CL_INVALID_KERNEL_ARGS)
        NAME(CL_INVALID_WORK_DIMENSION)
        NAME(CL_INVALID_WORK_GROUP_SIZE)
        NAME(CL_INVALID_WORK_ITEM_SIZE)
        NAME(CL_INVALID_GLOBAL_OFFSET)
        NAME(CL_INVALID_EVENT_WAIT_LIST)
        NAME(CL_INVALID_EVENT)
        NAME(CL_INVALID_OPERATION)
        NAME(CL_INVALID_BUFFER_SIZE)
        NAME(CL_INVALID_GLOBAL_WORK_SIZE)
        NAME(CL_INVALID_PROPERTY)
#undef NAME
    default: return "unknown OpenCL error";
    }
}

void check(cl_int code, const char* call, const std::string& context) {
    if (code == CL_SUCCESS) return;
    ErrorInfo info;
    const bool memory = code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES ||
                        code == CL_OUT_OF_HOST_MEMORY;
    info.errc = memory ? Errc::out_of_memory : Errc::backend_failure;
    info.backend = "opencl";
    info.call = call;
    info.code = code;
    info.code_name = error_name(code);
    info.context =
        context.empty() ? "native OpenCL baseline" : "native OpenCL baseline: " + context;
    throw Error(std::move(info));
}

MemObject create_buffer(cl_context context, cl_mem_flags flags, std::size_t bytes) {
    cl_int code = CL_SUCCESS;
    MemObject buffer(clCreateBuffer(context, flags, bytes, nullptr, &code));
    check(code, "clCreateBuffer", std::to_string(bytes) + " bytes");
    return buffer;
}

QueueObject create_queue(cl_context context, cl_device_id device,
                         cl_command_queue_properties properties) {
    cl_int code = CL_SUCCESS;
    QueueObject queue(clCreateCommandQueue(context, device, properties, &code));
    check(code, "clCreateCommandQueue");
    return queue;
}

PinnedHost::PinnedHost(cl_context context, cl_command_queue queue, std::size_t bytes)
    : queue_(queue),
      buffer_(create_buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes)) {
    cl_int code = CL_SUCCESS;
    void* mapped = clEnqueueMapBuffer(queue_, buffer_.get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                      0, bytes, 0, nullptr, nullptr, &code);
    check(code, "clEnqueueMapBuffer", "mapping a CL_MEM_ALLOC_HOST_PTR buffer once");
    data_ = static_cast<unsigned char*>(mapped);
}

PinnedHost::~PinnedHost() {
    // Results dropped: a destructor cannot throw (see Owned::reset).
    if (clEnqueueUnmapMemObject(queue_, buffer_.get(), data_, 0, nullptr, nullptr) == CL_SUCCESS)
        (void)clFinish(queue_);
}

HostBlock::HostBlock(HostMemory kind, std::size_t bytes, cl_context context,
                     cl_command_queue queue) {
    if (kind == HostMemory::pinned) {
        pinned_ = std::make_unique<PinnedHost>(context, queue, bytes);
        data_ = pinned_->data();
    } else {
        pageable_.assign(bytes, 0);
        data_ = pageable_.data();
    }
}

EventObject marker(cl_command_queue queue) {
    EventObject event;
    NATIVE_CL(clEnqueueMarkerWithWaitList(queue, 0, nullptr, event.out()));
    return event;
}

void wait(const EventObject& event) {
    const cl_event handle = event.get();
    NATIVE_CL(clWaitForEvents(1, &handle));
}

std::uint64_t end_to_end_ns(const EventObject& start, const EventObject& stop) {
    wait(stop);
    wait(start);
    cl_ulong begin = 0, end = 0;
    NATIVE_CL(clGetEventProfilingInfo(start.get(), CL_PROFILING_COMMAND_END, sizeof begin, &begin,
                                      nullptr));
    NATIVE_CL(clGetEventProfilingInfo(stop.get(), CL_PROFILING_COMMAND_END, sizeof end, &end,
                                      nullptr));
    return end >= begin ? end - begin : 0;
}

}  // namespace dualrt::bench::opencl
