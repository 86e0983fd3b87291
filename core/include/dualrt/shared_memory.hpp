/// @file
/// Memory that two devices of one GPU use in place: the GPU through CUDA and the same GPU through
/// OpenCL (NVIDIA's OpenCL driver). No byte is copied between them, and a kernel of either
/// backend runs on it at the speed of its own buffers. And device memory that processes on one
/// machine share in place: one process allocates it, others import it through a file descriptor.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>

#include <cstddef>
#include <string>

namespace dualrt {

/// Whether alloc_shared() can give two devices one allocation, and why not.
struct SharingSupport {
    bool possible = false;  ///< alloc_shared(a, b, n) works for this pair
    std::string reason;     ///< why not (empty when possible)
};

/// What alloc_shared() needs of `a` and `b`: two devices of one GPU (the same PCI bus id), one of
/// them a CUDA device that exports memory (virtual memory management with POSIX file descriptor
/// handles) and the other an OpenCL device that imports it by file descriptor (docs/guide.md names
/// the extension).
/// Never throws for devices that cannot share; Errc::invalid_argument for an empty device.
SharingSupport sharing_support(const Device& a, const Device& b);

namespace detail {
// The untyped part of alloc_shared: two views of one allocation of `bytes`.
std::pair<BufferView, BufferView> alloc_shared_bytes(const Device& a, const Device& b,
                                                     std::size_t count, std::size_t elem_size);
}  // namespace detail

/// One allocation of `count` elements, seen by two devices.
template <typename T>
struct SharedBuffers {
    Buffer<T> first;   ///< the allocation as a buffer of the first device given
    Buffer<T> second;  ///< the same memory as a buffer of the second
};

/// `count` elements of one GPU's memory that devices `a` and `b` (the CUDA and the OpenCL device
/// of that GPU, in either order) both use in place: `first` is a buffer of `a`, `second` a
/// buffer of `b`, and both are the same bytes. Contents undefined.
///
/// Ordering is the application's, as with any two queues: work of one device that reads what the
/// other wrote waits for its event (`queue_b.wait(event_a)`; across backends that wait is on the
/// host, Queue::wait says why). The memory lives until both buffers (and their views) are gone.
/// @throws Error Errc::unavailable with sharing_support()'s reason when the pair cannot share
///         (then Queue::copy between them stages through pinned memory); Errc::invalid_argument
///         for count 0 or an empty device; Errc::out_of_memory when the GPU has no room.
template <typename T>
SharedBuffers<T> alloc_shared(const Device& a, const Device& b, std::size_t count) {
    auto [first, second] = detail::alloc_shared_bytes(a, b, count, sizeof(T));
    return SharedBuffers<T>{Buffer<T>(std::move(first)), Buffer<T>(std::move(second))};
}

/// Whether `device` can share device memory with other processes of this machine
/// (alloc_exported() and import_exported() on it), and why not.
///
/// What it needs: an OpenCL device that imports memory (by file descriptor, as
/// NVIDIA's OpenCL offers) and a CUDA device of the same GPU (the same PCI bus id) that exports it
/// (virtual memory management with POSIX file descriptor handles): the memory is CUDA's, so the
/// process starts CUDA on that GPU. CUDA devices export but do not import here.
/// Never throws for a device that cannot share; Errc::invalid_argument for an empty device.
SharingSupport process_sharing_support(const Device& device);

namespace detail {
// The untyped parts of alloc_exported and import_exported.
std::pair<BufferView, int> alloc_exported_bytes(const Device& device, std::size_t count,
                                                std::size_t elem_size);
BufferView import_exported_bytes(const Device& device, int fd, std::size_t count,
                                 std::size_t elem_size);
}  // namespace detail

/// Device memory of this process that another process imports.
template <typename T>
struct ExportedBuffer {
    Buffer<T> buffer;  ///< the memory as a buffer of this process's device
    /// A POSIX file descriptor of the same memory, to hand to another process of this machine
    /// (over a Unix socket, SCM_RIGHTS), which imports it with import_exported(). The caller owns
    /// it: close it once it is passed on (the memory does not depend on it).
    int fd = -1;
};

/// `count` elements of `device`'s memory that other processes of this machine can import and use
/// in place (import_exported()). Contents undefined. Ordering between processes is the
/// application's: a process reads what another wrote only after that write has completed (an
/// Event waited for, then a message). The memory lives until this buffer and every import of it
/// are gone.
/// @throws Error Errc::unavailable with process_sharing_support()'s reason, or when `count`
///         elements exceed the largest import the device's driver is known to survive;
///         Errc::invalid_argument for count 0 or an empty device; Errc::out_of_memory.
template <typename T>
ExportedBuffer<T> alloc_exported(const Device& device, std::size_t count) {
    auto [buffer, fd] = detail::alloc_exported_bytes(device, count, sizeof(T));
    return ExportedBuffer<T>{Buffer<T>(std::move(buffer)), fd};
}

/// The memory another process exported (alloc_exported<T>(..., count) there; `fd` received from
/// it) as a buffer of `device`, used in place. Takes the descriptor in every case: the buffer
/// owns it, or it is closed when the import fails.
/// @throws Error Errc::unavailable with process_sharing_support()'s reason (or for more than the
///         largest import known to be safe); Errc::invalid_argument for count 0 or an empty
///         device; the driver's error for a descriptor it refuses.
template <typename T>
Buffer<T> import_exported(const Device& device, int fd, std::size_t count) {
    return Buffer<T>(detail::import_exported_bytes(device, fd, count, sizeof(T)));
}

}  // namespace dualrt
