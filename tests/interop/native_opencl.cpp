// The interop tests' native API on OpenCL: the C API of the ICD loader, loaded at run time.
#include "native_api.hpp"
#include "opencl_functions.hpp"
#include "runtime_library.hpp"

#include <stdexcept>
#include <string>

namespace test::native {

const OpenClFunctions* opencl_functions(std::string& why_not) {
    static std::string missing;
    static const OpenClFunctions* const loaded = [] {
        static dualrt::samples::RuntimeLibrary library({"libOpenCL.so.1", "libOpenCL.so"});
        static OpenClFunctions functions;
#define TEST_OPENCL_LOAD(name)                                    \
    functions.name = DUALRT_RUNTIME_FUNCTION(library, name);      \
    if (functions.name == nullptr) {                              \
        missing = library.why_not();                              \
        return static_cast<const OpenClFunctions*>(nullptr);      \
    }
        TEST_OPENCL_FUNCTIONS(TEST_OPENCL_LOAD)
#undef TEST_OPENCL_LOAD
        return static_cast<const OpenClFunctions*>(&functions);
    }();
    why_not = missing;
    return loaded;
}

void check(cl_int code, const char* call) {
    if (code != CL_SUCCESS)
        throw std::runtime_error(std::string(call) + " failed with OpenCL error " +
                                 std::to_string(code));
}

namespace {

template <typename Handle>
Handle as(NativeHandle handle) {
    return reinterpret_cast<Handle>(handle);
}

template <typename Handle>
NativeHandle native(Handle handle) {
    return reinterpret_cast<NativeHandle>(handle);
}

class OpenClApi final : public Api {
public:
    explicit OpenClApi(const OpenClFunctions& cl) : cl_(cl) {}

    dualrt::Backend backend() const override { return dualrt::Backend::opencl; }

    NativeHandle create_context(const dualrt::Device& device) override {
        const auto id = as<cl_device_id>(device.native_handle());
        cl_int status = CL_SUCCESS;
        cl_context context = cl_.clCreateContext(nullptr, 1, &id, nullptr, nullptr, &status);
        check(status, "clCreateContext");
        return native(context);
    }

    NativeHandle create_queue(NativeHandle context, bool profiling) override {
        cl_device_id device = nullptr;
        check(cl_.clGetContextInfo(as<cl_context>(context), CL_CONTEXT_DEVICES, sizeof device,
                                   &device, nullptr),
              "clGetContextInfo(CL_CONTEXT_DEVICES)");
        const cl_queue_properties properties[] = {
            CL_QUEUE_PROPERTIES,
            static_cast<cl_queue_properties>(profiling ? CL_QUEUE_PROFILING_ENABLE : 0), 0};
        cl_int status = CL_SUCCESS;
        cl_command_queue queue = cl_.clCreateCommandQueueWithProperties(
            as<cl_context>(context), device, properties, &status);
        check(status, "clCreateCommandQueueWithProperties");
        return native(queue);
    }

    NativeHandle create_buffer(NativeHandle context, std::size_t bytes) override {
        cl_int status = CL_SUCCESS;
        cl_mem buffer = cl_.clCreateBuffer(as<cl_context>(context), CL_MEM_READ_WRITE, bytes,
                                           nullptr, &status);
        check(status, "clCreateBuffer");
        return native(buffer);
    }

    NativeHandle record_event(NativeHandle, NativeHandle queue, bool) override {
        cl_event event = nullptr;
        check(cl_.clEnqueueMarkerWithWaitList(as<cl_command_queue>(queue), 0, nullptr, &event),
              "clEnqueueMarkerWithWaitList");
        return native(event);
    }

    void destroy(Kind kind, NativeHandle, NativeHandle handle) override {
        switch (kind) {
        case Kind::context:
            return check(cl_.clReleaseContext(as<cl_context>(handle)), "clReleaseContext");
        case Kind::queue:
            return check(cl_.clReleaseCommandQueue(as<cl_command_queue>(handle)),
                         "clReleaseCommandQueue");
        case Kind::buffer:
            return check(cl_.clReleaseMemObject(as<cl_mem>(handle)), "clReleaseMemObject");
        case Kind::event:
            return check(cl_.clReleaseEvent(as<cl_event>(handle)), "clReleaseEvent");
        }
    }

    void write(NativeHandle, NativeHandle queue, NativeHandle buffer, std::size_t offset,
               const void* data, std::size_t bytes) override {
        check(cl_.clEnqueueWriteBuffer(as<cl_command_queue>(queue), as<cl_mem>(buffer), CL_FALSE,
                                       offset, bytes, data, 0, nullptr, nullptr),
              "clEnqueueWriteBuffer");
    }

    void read(NativeHandle, NativeHandle queue, NativeHandle buffer, std::size_t offset,
              void* data, std::size_t bytes) override {
        check(cl_.clEnqueueReadBuffer(as<cl_command_queue>(queue), as<cl_mem>(buffer), CL_TRUE,
                                      offset, bytes, data, 0, nullptr, nullptr),
              "clEnqueueReadBuffer");
    }

    void finish(NativeHandle, NativeHandle queue) override {
        check(cl_.clFinish(as<cl_command_queue>(queue)), "clFinish");
    }

    std::optional<unsigned> references(Kind kind, NativeHandle handle) override {
        cl_uint count = 0;
        switch (kind) {
        case Kind::context:
            check(cl_.clGetContextInfo(as<cl_context>(handle), CL_CONTEXT_REFERENCE_COUNT,
                                       sizeof count, &count, nullptr),
                  "clGetContextInfo(CL_CONTEXT_REFERENCE_COUNT)");
            break;
        case Kind::queue:
            check(cl_.clGetCommandQueueInfo(as<cl_command_queue>(handle), CL_QUEUE_REFERENCE_COUNT,
                                            sizeof count, &count, nullptr),
                  "clGetCommandQueueInfo(CL_QUEUE_REFERENCE_COUNT)");
            break;
        case Kind::buffer:
            check(cl_.clGetMemObjectInfo(as<cl_mem>(handle), CL_MEM_REFERENCE_COUNT, sizeof count,
                                         &count, nullptr),
                  "clGetMemObjectInfo(CL_MEM_REFERENCE_COUNT)");
            break;
        case Kind::event:
            check(cl_.clGetEventInfo(as<cl_event>(handle), CL_EVENT_REFERENCE_COUNT, sizeof count,
                                     &count, nullptr),
                  "clGetEventInfo(CL_EVENT_REFERENCE_COUNT)");
            break;
        }
        return count;
    }

    bool retain(Kind kind, NativeHandle handle) override {
        switch (kind) {
        case Kind::context:
            check(cl_.clRetainContext(as<cl_context>(handle)), "clRetainContext");
            break;
        case Kind::queue:
            check(cl_.clRetainCommandQueue(as<cl_command_queue>(handle)), "clRetainCommandQueue");
            break;
        case Kind::buffer:
            check(cl_.clRetainMemObject(as<cl_mem>(handle)), "clRetainMemObject");
            break;
        case Kind::event:
            check(cl_.clRetainEvent(as<cl_event>(handle)), "clRetainEvent");
            break;
        }
        return true;
    }

    std::optional<bool> allocated(NativeHandle, NativeHandle) override { return std::nullopt; }

private:
    const OpenClFunctions& cl_;
};

}  // namespace

std::unique_ptr<Api> make_opencl_api(std::string& why_not) {
    const OpenClFunctions* functions = opencl_functions(why_not);
    if (functions == nullptr) return nullptr;
    return std::make_unique<OpenClApi>(*functions);
}

}  // namespace test::native
