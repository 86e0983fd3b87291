#include <dualrt/buffer.hpp>

#include "backend/backend.hpp"
#include "errors.hpp"

namespace dualrt {

BufferView::BufferView(std::shared_ptr<backend::BufferImpl> impl, std::size_t offset_bytes,
                       std::size_t bytes)
    : impl_(std::move(impl)), offset_bytes_(offset_bytes), bytes_(bytes) {}

std::size_t BufferView::allocation_bytes() const { return impl_ ? impl_->bytes() : 0; }

NativeHandle BufferView::native_handle() const {
    if (!impl_) detail::raise_argument("Buffer::native_handle", "the Buffer is empty");
    return impl_->native_handle();
}

BufferView BufferView::sub_view(std::size_t offset_bytes, std::size_t bytes,
                                std::size_t elem_size) const {
    if (!impl_) detail::raise_argument("Buffer::view", "the Buffer is empty");
    if (offset_bytes > bytes_ || bytes > bytes_ - offset_bytes)
        detail::raise_argument(
            "Buffer::view",
            "elements [" + std::to_string(offset_bytes / elem_size) + ", " +
                std::to_string((offset_bytes + bytes) / elem_size) + ") reach past the end of a " +
                std::to_string(bytes_ / elem_size) + "-element buffer",
            Errc::out_of_range);
    return BufferView(impl_, offset_bytes_ + offset_bytes, bytes);
}

}  // namespace dualrt
