#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>

#include "backend/backend.hpp"
#include "staging/cross_device.hpp"
#include "support/raise.hpp"

namespace dualrt {

BufferView::BufferView(std::shared_ptr<backend::BufferImpl> impl, std::size_t offset_bytes,
                       std::size_t bytes)
    : impl_(std::move(impl)), offset_bytes_(offset_bytes), bytes_(bytes) {}

std::size_t BufferView::allocation_bytes() const { return impl_ ? impl_->bytes() : 0; }

NativeHandle BufferView::native_handle() const {
    if (!impl_) detail::raise_argument("Buffer::native_handle", "the Buffer is empty");
    return impl_->native_handle();
}

Device BufferView::device() const {
    if (!impl_) detail::raise_argument("Buffer::device", "the Buffer is empty");
    return Device(detail::shared_device(impl_->device()));
}

BufferView BufferView::sub_view(std::size_t offset, std::size_t count,
                                std::size_t elem_size) const {
    if (!impl_) detail::raise_argument("Buffer::view", "the Buffer is empty");
    const std::size_t size = bytes_ / elem_size;
    if (offset > size || count > size - offset)
        detail::raise_argument("Buffer::view",
                               "elements [" + std::to_string(offset) + ", " +
                                   std::to_string(offset) + " + " + std::to_string(count) +
                                   ") reach past the end of a " + std::to_string(size) +
                                   "-element buffer",
                               Errc::out_of_range);
    return BufferView(impl_, offset_bytes_ + offset * elem_size, count * elem_size);
}

}  // namespace dualrt
