/// @file
/// Interop inwards: dualrt objects made around the native handles of other libraries (a CUDA
/// context, stream, device pointer or event; an OpenCL context, command queue, buffer or event),
/// borrowed or adopted. The other direction, dualrt's handles handed out, is native_handle() on
/// each object. docs/guide.md, "Native handles", has the lifetime rules and examples.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>
#include <dualrt/event.hpp>
#include <dualrt/queue.hpp>
#include <dualrt/types.hpp>

#include <cstddef>
#include <type_traits>

namespace dualrt {

/// Who releases a native handle that a dualrt object is made around. When a wrap_* call throws,
/// nothing is taken over: the handle stays the application's, to release as before.
enum class Ownership {
    /// The application keeps the handle: dualrt never releases or destroys it, and the
    /// application keeps it alive until the last dualrt object made around it (copies, views,
    /// the Events of a wrapped queue, and for a Device every child of it) is gone.
    borrow,
    /// dualrt takes the application's reference over: the handle is released with the driver's
    /// own free, destroy or release call for its kind (docs/guide.md names them) when the last
    /// dualrt object made around it is gone. The application must not release it.
    adopt
};

/// The ownership's name: "borrow" or "adopt".
const char* to_string(Ownership ownership) noexcept;

/// A native handle together with the backend it belongs to, so that a handle of the other
/// backend is refused before any driver sees it. Make one with cuda_handle() or opencl_handle().
struct ForeignHandle {
    Backend backend = Backend::opencl;  ///< the backend whose driver made the handle
    NativeHandle value = 0;             ///< the handle as an integer
};

namespace detail {

// A pointer handle (a stream, a buffer object, ...) or an integer one (a device pointer, a device
// ordinal) as an integer.
template <typename Handle>
NativeHandle to_native_handle(Handle handle) noexcept {
    if constexpr (std::is_null_pointer_v<Handle>) {
        static_cast<void>(handle);
        return 0;  // refused by the wrap_* calls, which name the handle expected
    } else if constexpr (std::is_pointer_v<Handle>) {
        return reinterpret_cast<NativeHandle>(handle);
    } else {
        static_assert(std::is_integral_v<Handle> || std::is_enum_v<Handle>,
                      "a native handle is a pointer (a stream, a buffer object, ...) or an "
                      "integer (a device pointer, a device ordinal, dualrt::NativeHandle)");
        return static_cast<NativeHandle>(handle);
    }
}

// Wraps `count` elements of `elem_size` bytes at `memory`; Buffer<T>'s type-free part.
BufferView wrap_buffer_bytes(const Device& device, ForeignHandle memory, std::size_t count,
                             std::size_t elem_size, Ownership ownership);

}  // namespace detail

/// A CUDA handle: a context, a device, a stream, a device pointer or an event, of the driver or
/// the runtime API, as it is, without a cast (docs/guide.md lists the types).
template <typename Handle>
ForeignHandle cuda_handle(Handle handle) noexcept {
    return ForeignHandle{Backend::cuda, detail::to_native_handle(handle)};
}

/// An OpenCL handle: a context, a device, a command queue, a memory object or an event, as it
/// is, without a cast (docs/guide.md lists the types).
template <typename Handle>
ForeignHandle opencl_handle(Handle handle) noexcept {
    return ForeignHandle{Backend::opencl, detail::to_native_handle(handle)};
}

/// A Device around the application's context: a CUDA context and its device, or an OpenCL
/// context and one of its devices. Everything made on it (buffers, queues, kernels, pinned memory,
/// Pipelines) lives in that context, so it mixes with the application's own objects of the
/// context; it is a Device of its own, apart from the one dualrt::devices() lists for the same
/// hardware (DeviceInfo::wrapped_context is true, the other fields are that device's). On CUDA
/// the context may be the device's primary context or one the application created; adopting a
/// primary context takes over one retain of it (released as the primary context), adopting
/// another destroys it. On OpenCL, kernels are built for the context on first use
/// (the on-disk program cache serves it as any other). The context is released, when adopted, once
/// the Device and every object made on it are gone; a borrowed one must outlive them all.
/// Thread-safe. Blocks while it queries the driver.
/// @param context  cuda_handle() or opencl_handle() of the context; never null
/// @param device   the context's device, of the same backend: on CUDA the context's own device,
///                 on OpenCL one of the context's devices
/// @param ownership whether dualrt releases the context (adopt) or never does (borrow)
/// @throws Error Errc::invalid_argument for handles of two backends, a null handle, a device
///         the context does not hold, or a context that is not a valid one; Errc::not_found when
///         the device is not one that dualrt::devices() lists; Errc::unavailable when the backend
///         cannot be used here or cannot wrap handles.
Device wrap_device(ForeignHandle context, ForeignHandle device, Ownership ownership);

/// A Queue around the application's in-order queue: a CUDA stream of the device's context, or an
/// OpenCL command queue of the device's context and device. It works like Device::create_queue()'s:
/// copies (staged or by DMA), fills, launches, events, waits. Work the application enqueues on the
/// handle natively is ordered with dualrt's, as for native_handle(). On OpenCL,
/// Event::elapsed_ms between the queue's record() events needs the queue made with profiling
/// enabled; without, it throws Errc::invalid_argument saying so (the events still order work).
/// Thread-safe. Blocks while it queries the driver.
/// @param device    the device (and context) the queue belongs to; a queue of another context
///                  of the same hardware needs that context wrapped first (wrap_device)
/// @param queue     cuda_handle() or opencl_handle() of the queue; never null, and not CUDA's
///                  legacy or per-thread default stream, which no one can own
/// @param ownership adopt: destroyed once this Queue,
///                  its copies and the Events it returned are gone; borrow: never, and the
///                  handle must outlive this Queue and its copies (not its Events: when the last
///                  Queue goes, dualrt records what it still owes the queue, and its Events then
///                  stand on their own)
/// @throws Error Errc::invalid_argument for an empty Device, a handle of the other backend, a null
///         handle, a queue of another context or device, or an out-of-order OpenCL queue;
///         Errc::unavailable when the backend cannot wrap queues.
Queue wrap_queue(const Device& device, ForeignHandle queue, Ownership ownership);

/// A Buffer<T> of `count` elements around the application's device memory: a CUDA device pointer
/// (the start of an allocation of the driver or runtime API, or a pointer inside one when
/// borrowed) or an OpenCL buffer object (not a sub-buffer or an image) of the device's context.
/// Copies, fills, views and kernel arguments work as on Device::alloc's buffers. Adopted memory is
/// freed once the Buffer and every view of it are gone; borrowed memory must
/// outlive them, and the application must not free it while work using it may still run.
/// Thread-safe. Blocks while it queries the driver.
/// @tparam T the element type (trivially copyable)
/// @param device    the device (and context) the memory belongs to
/// @param memory    cuda_handle() or opencl_handle() of the memory; never null
/// @param count     elements of T (> 0); count * sizeof(T) bytes must lie inside the allocation
///                  (its size as the driver reports it)
/// @param ownership adopt: freed with the last view (CUDA: only the start of an allocation can
///                  be adopted); borrow: never
/// @throws Error Errc::invalid_argument for an empty Device, a handle of the other backend, a null
///         handle, count 0, or memory of another context or device; Errc::out_of_range for a
///         size beyond the allocation; Errc::unavailable when the backend cannot wrap memory.
template <typename T>
Buffer<T> wrap_buffer(const Device& device, ForeignHandle memory, std::size_t count,
                      Ownership ownership) {
    static_assert(std::is_trivially_copyable_v<T>, "Buffer<T> needs a trivially copyable T");
    return Buffer<T>(detail::wrap_buffer_bytes(device, memory, count, sizeof(T), ownership));
}

/// An Event around the application's event: a CUDA event (CUDA lets any context's queues wait
/// for it) or an OpenCL event of the device's context (a user event included). Queue::wait,
/// Event::wait and is_complete work on it; Event::elapsed_ms works where the driver timed it
/// (CUDA: an event created with timing; OpenCL: the command of a queue with profiling enabled),
/// and says why not otherwise. On CUDA the Event stands for the event's latest record, as in CUDA
/// itself: recording it again natively moves it.
/// Thread-safe. Blocks while it queries the driver.
/// @param device    the device whose queues will wait for it
/// @param event     cuda_handle() or opencl_handle() of the event; never null
/// @param ownership adopt: destroyed once the Event and its
///                  copies are gone; borrow: never
/// @throws Error Errc::invalid_argument for an empty Device, a handle of the other backend, a null
///         handle, or an event of another context (OpenCL) or that is not a valid event;
///         Errc::unavailable when the backend cannot wrap events.
Event wrap_event(const Device& device, ForeignHandle event, Ownership ownership);

}  // namespace dualrt
