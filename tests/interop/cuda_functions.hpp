// The CUDA driver API, loaded at run time (libcuda.so.1) for the interop tests, which make and
// inspect native objects the way an application does; compiled only where the CUDA Toolkit's
// cuda.h is found (tests/CMakeLists.txt). Types come from cuda.h, so calls are checked as if
// the library were linked.
#pragma once

#include <cuda.h>

#include <string>

namespace test::native {

// X(name) for every function the tests call (cuda.h maps several to versioned symbols).
#define TEST_CUDA_FUNCTIONS(X)                                                                 \
    X(cuInit) X(cuCtxCreate) X(cuCtxDestroy) X(cuCtxPushCurrent) X(cuCtxPopCurrent)             \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize)                                 \
    X(cuMemAlloc) X(cuMemFree) X(cuMemGetAddressRange) X(cuMemcpyHtoDAsync)                     \
    X(cuMemcpyDtoHAsync) X(cuEventCreate) X(cuEventRecord) X(cuEventDestroy) X(cuEventQuery)

struct CudaFunctions {
#define TEST_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
    TEST_CUDA_FUNCTIONS(TEST_CUDA_DECLARE)
#undef TEST_CUDA_DECLARE
};

// The functions, loaded (and cuInit called) once; nullptr with `why_not` when libcuda.so.1 or a
// function is missing.
const CudaFunctions* cuda_functions(std::string& why_not);

// Throws std::runtime_error naming `call` and the code unless `code` is CUDA_SUCCESS.
void check(CUresult code, const char* call);

// Makes `context` current on the calling thread for one scope (the driver API works on the
// current context), restoring the previous one after.
class Current {
public:
    Current(const CudaFunctions& cu, CUcontext context);
    ~Current();
    Current(const Current&) = delete;
    Current& operator=(const Current&) = delete;

private:
    const CudaFunctions& cu_;
};

}  // namespace test::native
