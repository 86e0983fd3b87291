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
struct Bindable {
    std::mutex mutex;
    std::vector<CUcontext> contexts;
};

// Never destroyed: devices release their contexts through ScopedContext when the backend goes,
// which may be during static destruction, after a function-local static list would have gone
// (ASan saw that use after free at exit on the GPU).
Bindable& bindable() {
    static Bindable* const list = new Bindable();
    return *list;
}

bool may_bind(CUcontext context) {
    Bindable& list = bindable();
    std::lock_guard<std::mutex> lock(list.mutex);
    return std::find(list.contexts.begin(), list.contexts.end(), context) != list.contexts.end();
}

}  // namespace

void allow_binding(CUcontext primary) {
    Bindable& list = bindable();
    std::lock_guard<std::mutex> lock(list.mutex);
    if (std::find(list.contexts.begin(), list.contexts.end(), primary) == list.contexts.end())
        list.contexts.push_back(primary);
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
    CU_CHECK_NOTHROW(cuCtxGetCurrent(&current),
                     "reading the calling thread's current CUDA context");
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
