/// @file
/// Memory that two devices of one GPU use in place: the GPU through CUDA and the same GPU through
/// OpenCL (NVIDIA's OpenCL driver). No byte is copied between them, and a kernel of either
/// backend runs on it at the speed of its own buffers.
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
/// handles) and the other an OpenCL device that imports it (cl_khr_external_memory_opaque_fd).
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

}  // namespace dualrt
