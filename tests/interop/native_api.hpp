// The application's side of the interop tests: native objects made, used and inspected through
// the driver API directly (as another library would), for dualrt to wrap. The driver is loaded
// at run time (libOpenCL.so.1 / libcuda.so.1), so the test binary links neither, and every case
// is written once for both backends against this interface. Objects live in a "context": a
// cl_context (of one device) or a CUcontext; every call that needs one current takes it.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace test::native {

using dualrt::NativeHandle;

enum class Kind { context, queue, buffer, event };

class Api {
public:
    virtual ~Api() = default;
    virtual dualrt::Backend backend() const = 0;
    // The handle tagged with this backend, for the wrap_* calls.
    dualrt::ForeignHandle tag(NativeHandle handle) const {
        return dualrt::ForeignHandle{backend(), handle};
    }

    // --- objects the caller owns (one reference each), all throwing std::runtime_error with
    // the driver call and its code on failure ---

    // A new context on `device`'s hardware (clCreateContext / cuCtxCreate), apart from dualrt's.
    // CUDA leaves the calling thread's current context as it was.
    virtual NativeHandle create_context(const dualrt::Device& device) = 0;
    // An in-order queue (stream) of `context`; `profiling`: CL_QUEUE_PROFILING_ENABLE (CUDA
    // streams have no such property and ignore it).
    virtual NativeHandle create_queue(NativeHandle context, bool profiling) = 0;
    virtual NativeHandle create_buffer(NativeHandle context, std::size_t bytes) = 0;
    // An event at the current end of `queue`: a marker (its timestamps are the queue's), or a
    // CUevent created with timing or with CU_EVENT_DISABLE_TIMING and recorded.
    virtual NativeHandle record_event(NativeHandle context, NativeHandle queue, bool timing) = 0;
    // Releases the caller's reference (clRelease*), or destroys the object (cu*Destroy,
    // cuMemFree); `context` is the one the object was made in.
    virtual void destroy(Kind kind, NativeHandle context, NativeHandle handle) = 0;

    // --- work ---

    // Enqueues a copy of `bytes` from `data` (which must stay valid until the queue is
    // finished) into `buffer` at `offset`.
    virtual void write(NativeHandle context, NativeHandle queue, NativeHandle buffer,
                       std::size_t offset, const void* data, std::size_t bytes) = 0;
    // Copies `bytes` of `buffer` at `offset` into `data` after the queue's earlier work;
    // returns when done.
    virtual void read(NativeHandle context, NativeHandle queue, NativeHandle buffer,
                      std::size_t offset, void* data, std::size_t bytes) = 0;
    virtual void finish(NativeHandle context, NativeHandle queue) = 0;

    // --- what happened to a handle ---

    // The driver's reference count of `handle` (OpenCL's CL_*_REFERENCE_COUNT), or nullopt
    // where objects have none (CUDA).
    virtual std::optional<unsigned> references(Kind kind, NativeHandle handle) = 0;
    // One more reference (clRetain*), so the count can still be read after dualrt has released
    // an adopted one. False, doing nothing, where objects have no count (CUDA).
    virtual bool retain(Kind kind, NativeHandle handle) = 0;
    // Whether device memory at `buffer` is still allocated, where the driver can say without
    // touching freed memory (CUDA: cuMemGetAddressRange); nullopt otherwise (OpenCL).
    virtual std::optional<bool> allocated(NativeHandle context, NativeHandle buffer) = 0;
};

// A native object the test owns: destroyed (its reference released) at the end of the scope,
// unless given away to dualrt (Ownership::adopt) first. Not copyable.
class Owned {
public:
    Owned(Api& api, Kind kind, NativeHandle context, NativeHandle handle)
        : api_(api), kind_(kind), context_(context), handle_(handle) {}
    ~Owned() {
        if (handle_ == 0) return;
        try {
            api_.destroy(kind_, context_, handle_);
        } catch (...) {  // a destructor: the test has already reported what went wrong
        }
    }
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;

    NativeHandle get() const noexcept { return handle_; }
    // Destroys the object now.
    void reset() {
        if (handle_ != 0) api_.destroy(kind_, context_, give_away());
    }
    // The handle, no longer destroyed here: dualrt adopted it (or the test releases it itself).
    NativeHandle give_away() noexcept {
        const NativeHandle handle = handle_;
        handle_ = 0;
        return handle;
    }

private:
    Api& api_;
    Kind kind_;
    NativeHandle context_;
    NativeHandle handle_;
};

// The native API of `backend`, loaded once, or nullptr with `why_not` saying why it cannot be
// used here (the driver library is missing, or this build has no header for it).
Api* api(dualrt::Backend backend, std::string& why_not);

// The backends' own loaders, for api() (native_opencl.cpp, native_cuda.cpp or its stand-in).
std::unique_ptr<Api> make_opencl_api(std::string& why_not);
std::unique_ptr<Api> make_cuda_api(std::string& why_not);

}  // namespace test::native
