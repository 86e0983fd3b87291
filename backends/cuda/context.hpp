// ScopedContext: makes a device's CUDA context current on the calling thread for one scope, so
// that any host thread may call into the backend (the driver API works on the calling thread's
// current context).
#pragma once

#include <cuda.h>

namespace dualrt::cuda {

// Pushes `context` when it is not already current and pops it again at the end of the scope,
// restoring whatever the application had current. Costs one cuCtxGetCurrent when the context is
// already current (the common case: one device per thread). Not copyable; use on the stack.
class ScopedContext {
public:
    struct NoThrow {};
    static constexpr NoThrow no_throw{};

    // Throws dualrt::Error when the context cannot be made current.
    explicit ScopedContext(CUcontext context);
    // For destructors: logs a failure instead of throwing (the calls that follow then fail and
    // log too, rather than terminating the program).
    ScopedContext(CUcontext context, NoThrow) noexcept;
    ~ScopedContext();  // never throws; logs a failed pop
    ScopedContext(const ScopedContext&) = delete;
    ScopedContext& operator=(const ScopedContext&) = delete;

private:
    bool pushed_ = false;
};

}  // namespace dualrt::cuda
