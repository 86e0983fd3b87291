// ScopedContext: makes a device's CUDA context current on the calling thread for one scope, so
// that any host thread may call into the backend (the driver API works on the calling thread's
// current context).
#pragma once

#include <cuda.h>

namespace dualrt::cuda {

// Lets ScopedContext leave `primary`, a device's primary context, bound to threads that had no
// context current. Thread-safe.
void allow_binding(CUcontext primary);

// Makes `context` current for the scope:
// - already current (the common case: one device per thread): one cuCtxGetCurrent, nothing more;
// - no context current on the thread, and `context` a primary context (allow_binding): binds it
//   and leaves it bound (cuCtxSetCurrent), as the CUDA runtime binds a primary context on its
//   first call, so that the thread's next calls cost one cuCtxGetCurrent instead of a push and a
//   pop each (a push and a pop per call put dualrt's launch cost some 14% above native's, as
//   launch_cost shows). A primary context's handle outlives its releases, so a
//   bound one never dangles; a context the application made (wrap_device) may be destroyed, so
//   it is never left bound;
// - another context current (the application's own, or another device's): pushes `context` and
//   pops it again at the end of the scope, restoring what the application had current.
// Not copyable; use on the stack.
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
