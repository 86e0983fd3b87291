/// @file
/// HostBuffer<T>: pinned (page-locked) host memory the device can copy asynchronously.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

#include <dualrt/types.hpp>

namespace dualrt {

namespace backend {
class HostBufferImpl;
}
namespace detail {
/// Throws Errc::out_of_range unless elements [offset, offset + count) fit in `size` (internal).
void check_host_view(std::size_t size, std::size_t offset, std::size_t count);
}  // namespace detail

/// Pinned host memory, usable on every queue of its device: made by Device::alloc_host<T>(n)
/// (dualrt's own pinned memory, freed with the last HostBuffer of it) or Device::register_host
/// (the application's memory pinned in place, borrowed). The memory stays mapped for the host for
/// the buffer's whole life. Copies and views share it; the memory goes when the last of them
/// does. Copies from and to it, or any view of it, are DMA, fully asynchronous. Contents are not
/// thread-safe (it is plain memory); the object itself is.
/// @tparam T a trivially copyable element type
template <typename T>
class HostBuffer {
    static_assert(std::is_trivially_copyable_v<T>, "HostBuffer<T> needs a trivially copyable T");

public:
    using value_type = T;  ///< the element type
    HostBuffer() = default;  ///< empty: valid() is false, data() nullptr, size() 0
    /// `size` elements at `data`, pinned memory owned by `impl` (internal: made by
    /// Device::alloc_host).
    HostBuffer(std::shared_ptr<backend::HostBufferImpl> impl, T* data, std::size_t size)
        : impl_(std::move(impl)), data_(data), size_(size) {}

    /// Whether this holds pinned memory (false when default-constructed).
    bool valid() const noexcept { return impl_ != nullptr; }
    T* data() const noexcept { return data_; }  ///< the first element; valid for the buffer's life
    std::size_t size() const noexcept { return size_; }  ///< the number of elements
    std::size_t bytes() const noexcept { return size_ * sizeof(T); }  ///< size() * sizeof(T)
    T& operator[](std::size_t i) const noexcept { return data_[i]; }  ///< unchecked, like a span
    T* begin() const noexcept { return data_; }          ///< data()
    T* end() const noexcept { return data_ + size_; }    ///< data() + size()

    /// Elements [offset, offset + count) of this buffer, sharing its pinned memory (and keeping it
    /// alive): copies from and to a view are DMA like the whole buffer's. Cheap; thread-safe.
    /// @throws Error Errc::out_of_range when the range does not fit in size().
    HostBuffer view(std::size_t offset, std::size_t count) const {
        detail::check_host_view(size_, offset, count);
        return HostBuffer(impl_, data_ + offset, count);
    }
    friend struct detail::BackendAccess;  // the library's own code reaches the backend object

private:
    std::shared_ptr<backend::HostBufferImpl> impl_;
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace dualrt
