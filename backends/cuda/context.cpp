// ScopedContext: push/pop of the calling thread's current CUDA context.
#include "context.hpp"

#include "check.hpp"

namespace dualrt::cuda {

ScopedContext::ScopedContext(CUcontext context) {
    CUcontext current = nullptr;
    CU_CHECK(cuCtxGetCurrent(&current), "reading the calling thread's current CUDA context");
    if (current == context) return;
    CU_CHECK(cuCtxPushCurrent(context), "making a device's CUDA context current on this thread");
    pushed_ = true;
}

ScopedContext::ScopedContext(CUcontext context, NoThrow) noexcept {
    CUcontext current = nullptr;
    CU_CHECK_NOTHROW(cuCtxGetCurrent(&current), "reading the calling thread's current CUDA context");
    if (current == context) return;
    const CUresult pushed = cuCtxPushCurrent(context);
    CU_CHECK_NOTHROW(pushed, "making a device's CUDA context current to release an object");
    pushed_ = pushed == CUDA_SUCCESS;
}

ScopedContext::~ScopedContext() {
    if (!pushed_) return;
    CUcontext popped = nullptr;
    CU_CHECK_NOTHROW(cuCtxPopCurrent(&popped), "restoring the calling thread's CUDA context");
}

}  // namespace dualrt::cuda
