// The interop tests' native API on CUDA: the driver API, loaded at run time from libcuda.so.1
// (the library the CUDA backend links, so both see the same contexts).
#include "cuda_functions.hpp"
#include "native_api.hpp"
#include "runtime_library.hpp"

#include <stdexcept>
#include <string>

namespace test::native {

const CudaFunctions* cuda_functions(std::string& why_not) {
    static std::string missing;
    static const CudaFunctions* const loaded = [] {
        static dualrt::samples::RuntimeLibrary library({"libcuda.so.1"});
        static CudaFunctions functions;
#define TEST_CUDA_LOAD(name)                                      \
    functions.name = DUALRT_RUNTIME_FUNCTION(library, name);      \
    if (functions.name == nullptr) {                              \
        missing = library.why_not();                              \
        return static_cast<const CudaFunctions*>(nullptr);        \
    }
        TEST_CUDA_FUNCTIONS(TEST_CUDA_LOAD)
#undef TEST_CUDA_LOAD
        const CUresult status = functions.cuInit(0);
        if (status != CUDA_SUCCESS) {
            missing = "cuInit failed with CUDA error " + std::to_string(status);
            return static_cast<const CudaFunctions*>(nullptr);
        }
        return static_cast<const CudaFunctions*>(&functions);
    }();
    why_not = missing;
    return loaded;
}

void check(CUresult code, const char* call) {
    if (code != CUDA_SUCCESS)
        throw std::runtime_error(std::string(call) + " failed with CUDA error " +
                                 std::to_string(code));
}

Current::Current(const CudaFunctions& cu, CUcontext context) : cu_(cu) {
    check(cu_.cuCtxPushCurrent(context), "cuCtxPushCurrent");
}

Current::~Current() {
    CUcontext popped = nullptr;
    static_cast<void>(cu_.cuCtxPopCurrent(&popped));  // a destructor: nothing to report to
}

namespace {

CUcontext as_context(NativeHandle handle) { return reinterpret_cast<CUcontext>(handle); }
CUstream as_stream(NativeHandle handle) { return reinterpret_cast<CUstream>(handle); }
CUevent as_event(NativeHandle handle) { return reinterpret_cast<CUevent>(handle); }
CUdeviceptr as_pointer(NativeHandle handle) { return static_cast<CUdeviceptr>(handle); }

template <typename Handle>
NativeHandle native(Handle handle) {
    return reinterpret_cast<NativeHandle>(handle);
}

class CudaApi final : public Api {
public:
    explicit CudaApi(const CudaFunctions& cu) : cu_(cu) {}

    dualrt::Backend backend() const override { return dualrt::Backend::cuda; }

    NativeHandle create_context(const dualrt::Device& device) override {
        CUctxCreateParams params{};  // no affinity, no CIG: a plain context
        CUcontext context = nullptr;
        check(cu_.cuCtxCreate(&context, &params, 0, static_cast<CUdevice>(device.native_handle())),
              "cuCtxCreate");
        CUcontext popped = nullptr;  // cuCtxCreate made it current; the caller's stays so
        check(cu_.cuCtxPopCurrent(&popped), "cuCtxPopCurrent");
        return native(context);
    }

    NativeHandle create_queue(NativeHandle context, bool) override {
        Current current(cu_, as_context(context));
        CUstream stream = nullptr;
        check(cu_.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        return native(stream);
    }

    NativeHandle create_buffer(NativeHandle context, std::size_t bytes) override {
        Current current(cu_, as_context(context));
        CUdeviceptr pointer = 0;
        check(cu_.cuMemAlloc(&pointer, bytes), "cuMemAlloc");
        return static_cast<NativeHandle>(pointer);
    }

    NativeHandle record_event(NativeHandle context, NativeHandle queue, bool timing) override {
        Current current(cu_, as_context(context));
        CUevent event = nullptr;
        check(cu_.cuEventCreate(&event, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING),
              "cuEventCreate");
        check(cu_.cuEventRecord(event, as_stream(queue)), "cuEventRecord");
        return native(event);
    }

    void destroy(Kind kind, NativeHandle context, NativeHandle handle) override {
        if (kind == Kind::context)
            return check(cu_.cuCtxDestroy(as_context(handle)), "cuCtxDestroy");
        Current current(cu_, as_context(context));
        switch (kind) {
        case Kind::queue: return check(cu_.cuStreamDestroy(as_stream(handle)), "cuStreamDestroy");
        case Kind::buffer: return check(cu_.cuMemFree(as_pointer(handle)), "cuMemFree");
        case Kind::event: return check(cu_.cuEventDestroy(as_event(handle)), "cuEventDestroy");
        case Kind::context: break;
        }
    }

    void write(NativeHandle context, NativeHandle queue, NativeHandle buffer, std::size_t offset,
               const void* data, std::size_t bytes) override {
        Current current(cu_, as_context(context));
        check(cu_.cuMemcpyHtoDAsync(as_pointer(buffer) + offset, data, bytes, as_stream(queue)),
              "cuMemcpyHtoDAsync");
    }

    void read(NativeHandle context, NativeHandle queue, NativeHandle buffer, std::size_t offset,
              void* data, std::size_t bytes) override {
        Current current(cu_, as_context(context));
        check(cu_.cuMemcpyDtoHAsync(data, as_pointer(buffer) + offset, bytes, as_stream(queue)),
              "cuMemcpyDtoHAsync");
        check(cu_.cuStreamSynchronize(as_stream(queue)), "cuStreamSynchronize");
    }

    void finish(NativeHandle context, NativeHandle queue) override {
        Current current(cu_, as_context(context));
        check(cu_.cuStreamSynchronize(as_stream(queue)), "cuStreamSynchronize");
    }

    std::optional<unsigned> references(Kind, NativeHandle) override { return std::nullopt; }
    bool retain(Kind, NativeHandle) override { return false; }

    std::optional<bool> allocated(NativeHandle context, NativeHandle buffer) override {
        Current current(cu_, as_context(context));
        CUdeviceptr base = 0;
        std::size_t size = 0;
        // Asks the driver's table of allocations; freed memory is simply not in it.
        return cu_.cuMemGetAddressRange(&base, &size, as_pointer(buffer)) == CUDA_SUCCESS;
    }

private:
    const CudaFunctions& cu_;
};

}  // namespace

std::unique_ptr<Api> make_cuda_api(std::string& why_not) {
    const CudaFunctions* functions = cuda_functions(why_not);
    if (functions == nullptr) return nullptr;
    return std::make_unique<CudaApi>(*functions);
}

}  // namespace test::native
