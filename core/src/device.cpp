#include <dualrt/device.hpp>

#include "backend/backend.hpp"
#include "errors.hpp"

#include <limits>

namespace dualrt {

Device::Device(std::shared_ptr<backend::DeviceImpl> impl) : impl_(std::move(impl)) {}

void Device::require_valid(const char* operation) const {
    if (!impl_) detail::raise_argument(operation, "the Device is empty (default-constructed)");
}

const DeviceInfo& Device::info() const {
    require_valid("Device::info");
    return impl_->info();
}

namespace {

std::size_t checked_bytes(const char* operation, std::size_t count, std::size_t elem_size) {
    if (count == 0)
        detail::raise_argument(operation, "cannot allocate 0 elements; expected a count > 0");
    if (count > std::numeric_limits<std::size_t>::max() / elem_size)
        detail::raise_argument(operation, std::to_string(count) + " elements of " +
                                              std::to_string(elem_size) +
                                              " bytes overflow the address space");
    return count * elem_size;
}

}  // namespace

BufferView Device::alloc_bytes(std::size_t count, std::size_t elem_size) const {
    require_valid("Device::alloc");
    const auto bytes = checked_bytes("Device::alloc", count, elem_size);
    auto impl = impl_->create_buffer(bytes);
    return BufferView(std::move(impl), 0, bytes);
}

std::shared_ptr<backend::HostBufferImpl> Device::alloc_host_bytes(std::size_t count,
                                                                  std::size_t elem_size) const {
    require_valid("Device::alloc_host");
    const auto bytes = checked_bytes("Device::alloc_host", count, elem_size);
    return impl_->create_host_buffer(bytes);
}

void* Device::host_data(backend::HostBufferImpl& impl) { return impl.data(); }

Queue Device::create_queue() const {
    require_valid("Device::create_queue");
    return Queue(impl_->create_queue(), impl_);
}

Kernel Device::kernel(std::string_view name) const {
    require_valid("Device::kernel");
    if (name.empty()) detail::raise_argument("Device::kernel", "the kernel name is empty");
    return Kernel(impl_->kernel(std::string(name)));
}

std::vector<std::string> Device::load_sources(const KernelSource& source) const {
    require_valid("Device::load_sources");
    if (source.name.empty())
        detail::raise_argument("Device::load_sources", "the KernelSource has no name");
    const bool cuda = impl_->info().backend == Backend::cuda;
    const std::string& text = cuda ? source.cuda : source.opencl;
    if (text.empty())
        detail::raise_argument("Device::load_sources",
                               "KernelSource '" + source.name + "' has no " +
                                   (cuda ? "CUDA" : "OpenCL") + " text, and device '" +
                                   impl_->info().name + "' runs on the " +
                                   to_string(impl_->info().backend) + " backend");
    return impl_->load_source(source.name, text);
}

NativeHandle Device::native_handle() const {
    require_valid("Device::native_handle");
    return impl_->native_handle();
}

NativeHandle Device::native_context() const {
    require_valid("Device::native_context");
    return impl_->native_context();
}

}  // namespace dualrt
