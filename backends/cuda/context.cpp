// ScopedContext: the calling thread's current CUDA context for one scope (context.hpp).
#include "context.hpp"

#include "check.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace dualrt::cuda {
namespace {

// The primary contexts dualrt retained: one per device at most, looked up only on a thread's
// first call with no context current.
std::mutex bindable_mutex;
std::vector<CUcontext>& bindable() {
    static std::vector<CUcontext> contexts;
    return contexts;
}

bool may_bind(CUcontext context) {
    std::lock_guard<std::mutex> lock(bindable_mutex);
    const auto& contexts = bindable();
    return std::find(contexts.begin(), contexts.end(), context) != contexts.end();
}

}  // namespace

void allow_binding(CUcontext primary) {
    std::lock_guard<std::mutex> lock(bindable_mutex);
    auto& contexts = bindable();
    if (std::find(contexts.begin(), contexts.end(), primary) == contexts.end())
        contexts.push_back(primary);
}

ScopedContext::ScopedContext(CUcontext context) {
    CUcontext current = nullptr;
    CU_CHECK(cuCtxGetCurrent(&current), "reading the calling thread's current CUDA context");
    if (current == context) return;
    if (current == nullptr && may_bind(context)) {
        CU_CHECK(cuCtxSetCurrent(context), "binding a device's CUDA context to this thread");
        return;
    }
    CU_CHECK(cuCtxPushCurrent(context), "making a device's CUDA context current on this thread");
    pushed_ = true;
}

ScopedContext::ScopedContext(CUcontext context, NoThrow) noexcept {
    CUcontext current = nullptr;
    CU_CHECK_NOTHROW(cuCtxGetCurrent(&current), "reading the calling thread's current CUDA context");
    if (current == context) return;
    if (current == nullptr && may_bind(context)) {
        CU_CHECK_NOTHROW(cuCtxSetCurrent(context),
                         "binding a device's CUDA context to release an object");
        return;
    }
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
