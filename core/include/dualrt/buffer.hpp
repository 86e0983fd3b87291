/// @file
/// Buffer<T>: typed device memory, and views of part of it.
#pragma once

#include <dualrt/types.hpp>

#include <cstddef>
#include <memory>
#include <type_traits>

namespace dualrt {

namespace backend {
class BufferImpl;
}
class Device;

/// The type-free part of a buffer view: an allocation plus a byte range of it. Views share the
/// allocation; it is freed when the last view goes. Copying a view is cheap. Thread-safe.
class BufferView {
public:
    BufferView() = default;  ///< empty: valid() is false
    /// Bytes [offset_bytes, offset_bytes + bytes) of the allocation `impl`. Made by the library
    /// (Device::alloc); applications use Buffer<T> and its view().
    BufferView(std::shared_ptr<backend::BufferImpl> impl, std::size_t offset_bytes,
               std::size_t bytes);

    /// Whether this view refers to an allocation (false when default-constructed).
    bool valid() const noexcept { return impl_ != nullptr; }
    std::size_t bytes() const noexcept { return bytes_; }  ///< the length of the view in bytes
    std::size_t offset_bytes() const noexcept { return offset_bytes_; }  ///< within the allocation
    std::size_t allocation_bytes() const;  ///< the size of the whole allocation the view is of
    /// The device the allocation is on. @throws Error Errc::invalid_argument when empty
    Device device() const;
    /// The native allocation (docs/guide.md, native_handle); add offset_bytes() yourself on CUDA.
    NativeHandle native_handle() const;
    friend struct detail::BackendAccess;  // the library's own code reaches the backend object

protected:
    /// Elements [offset, offset + count) of elem_size bytes each, range-checked in elements (so
    /// huge values cannot overflow); throws Errc::out_of_range naming the sizes.
    BufferView sub_view(std::size_t offset, std::size_t count, std::size_t elem_size) const;

private:
    std::shared_ptr<backend::BufferImpl> impl_;
    std::size_t offset_bytes_ = 0;
    std::size_t bytes_ = 0;
};

/// Device memory holding size() elements of T. Create with Device::alloc<T>(n).
/// @tparam T a trivially copyable element type
template <typename T>
class Buffer : public BufferView {
    static_assert(std::is_trivially_copyable_v<T>, "Buffer<T> needs a trivially copyable T");

public:
    using value_type = T;  ///< the element type
    Buffer() = default;    ///< empty: valid() is false
    /// The typed view of `whole`: size() is whole.bytes() / sizeof(T).
    explicit Buffer(BufferView whole) : BufferView(std::move(whole)) {}

    std::size_t size() const noexcept { return bytes() / sizeof(T); }  ///< elements in the view

    /// Elements [offset, offset + count) of this view, sharing its memory. Throws
    /// Errc::out_of_range when the range does not fit.
    Buffer view(std::size_t offset, std::size_t count) const {
        return Buffer(sub_view(offset, count, sizeof(T)));
    }
};

}  // namespace dualrt
