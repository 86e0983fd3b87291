#include <dualrt/kernel.hpp>

#include "backend/backend.hpp"
#include "errors.hpp"

namespace dualrt {

Kernel::Kernel(std::shared_ptr<backend::KernelImpl> impl) : impl_(std::move(impl)) {}

const std::string& Kernel::name() const {
    if (!impl_) detail::raise_argument("Kernel::name", "the Kernel is empty");
    return impl_->name();
}

std::size_t Kernel::param_count() const {
    if (!impl_) detail::raise_argument("Kernel::param_count", "the Kernel is empty");
    return impl_->params().size();
}

NativeHandle Kernel::native_handle() const {
    if (!impl_) detail::raise_argument("Kernel::native_handle", "the Kernel is empty");
    return impl_->native_handle();
}

}  // namespace dualrt
