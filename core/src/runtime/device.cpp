#include <dualrt/device.hpp>

#include "backend/backend.hpp"
#include "backend/launch_journal.hpp"
#include "staging/pinned_ranges.hpp"
#include "support/raise.hpp"

#include <limits>

#include <unistd.h>  // sysconf: the host's physical memory, for alloc_mapped

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
    return detail::track_pinned(impl_->create_host_buffer(bytes), detail::PinnedOrigin::allocated);
}

std::shared_ptr<backend::HostBufferImpl> Device::register_host_bytes(void* data, std::size_t count,
                                                                     std::size_t elem_size) const {
    const char* op = "Device::register_host";
    require_valid(op);
    const auto bytes = checked_bytes(op, count, elem_size);
    if (data == nullptr) detail::raise_argument(op, "the pointer is null");
    if (const auto pinned = detail::overlapping_pinned(data, bytes))
        detail::raise_argument(
            op, "the range of " + detail::format_bytes(bytes) + " at " +
                    detail::address_text(data) + " overlaps " +
                    (pinned->origin == detail::PinnedOrigin::allocated
                         ? "a pinned buffer from Device::alloc_host"
                         : "a range registered before") +
                    " (" + detail::format_bytes(pinned->bytes) + " at " +
                    detail::address_text(pinned->begin) + ", on " + pinned->device +
                    "); memory is pinned once: copy through that HostBuffer or a view of it");
    return detail::track_pinned(impl_->register_host_memory(data, bytes),
                                detail::PinnedOrigin::registered);
}

void* Device::host_data(backend::HostBufferImpl& impl) { return impl.data(); }

namespace detail {

void check_host_view(std::size_t size, std::size_t offset, std::size_t count) {
    if (offset > size || count > size - offset)
        raise_argument("HostBuffer::view",
                       "elements [" + std::to_string(offset) + ", " + std::to_string(offset) +
                           " + " + std::to_string(count) + ") do not fit in a buffer of " +
                           std::to_string(size) + " elements",
                       Errc::out_of_range);
}

}  // namespace detail

backend::DeviceImpl::DeviceImpl() : launch_journal_(detail::make_launch_journal()) {}

backend::DeviceImpl::~DeviceImpl() = default;

bool backend::DeviceImpl::can_wait_on(const DeviceImpl& other) const { return &other == this; }

bool backend::DeviceImpl::can_copy_peer(const DeviceImpl&) const { return false; }

backend::EventPtr backend::QueueImpl::mark() { return record(); }

std::unique_ptr<backend::RecorderImpl> backend::DeviceImpl::create_recorder(QueueImpl&) {
    detail::raise_argument("Queue::begin_recording",
                           "device '" + info().name + "' (" + detail::device_label(info()) +
                               "): this backend cannot record commands "
                               "(DeviceInfo::recording is none); enqueue them one by one",
                           Errc::unavailable);
}

backend::EventPtr backend::QueueImpl::copy_peer(BufferImpl&, std::size_t, BufferImpl&,
                                                std::size_t, std::size_t) {
    detail::raise_argument("Queue::copy (between devices)",
                           "this backend has no peer copies; the copy is staged instead",
                           Errc::unavailable);
}

std::shared_ptr<backend::HostBufferImpl> backend::DeviceImpl::register_host_memory(void*,
                                                                                  std::size_t) {
    detail::raise_argument("Device::register_host",
                           "device '" + info().name + "' (" + detail::device_label(info()) +
                               "): this backend cannot pin memory the application allocated; "
                               "copy through Device::alloc_host buffers instead",
                           Errc::unavailable);
}

namespace {

// The host's physical memory in bytes, or 0 when the system does not say.
std::size_t physical_host_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return 0;
    const auto count = static_cast<std::size_t>(pages);
    const auto size = static_cast<std::size_t>(page_size);
    if (count > std::numeric_limits<std::size_t>::max() / size)
        return std::numeric_limits<std::size_t>::max();
    return count * size;
}

}  // namespace

std::shared_ptr<backend::MappedBufferImpl> Device::alloc_mapped_bytes(
    std::size_t count, std::size_t elem_size) const {
    const char* op = "Device::alloc_mapped";
    require_valid(op);
    const auto bytes = checked_bytes(op, count, elem_size);
    const DeviceInfo& info = impl_->info();
    if (!info.can_map_host_memory)
        detail::raise_argument(op,
                               "device '" + info.name + "' (" + to_string(info.backend) +
                                   " device " + std::to_string(info.index) +
                                   ") cannot map host memory into its address space, so it has "
                                   "no zero-copy buffers; use alloc_host and copies instead",
                               Errc::unavailable);
    // Mapped memory is pinned: it can never exceed the host's RAM. Saying so here is clearer
    // than whatever the driver answers to an impossible request.
    const std::size_t physical = physical_host_memory();
    if (physical != 0 && bytes > physical)
        detail::raise_argument(op,
                               "a mapped buffer of " + detail::format_bytes(bytes) +
                                   " exceeds the host's physical memory (" +
                                   detail::format_bytes(physical) +
                                   "); mapped memory is pinned host memory",
                               Errc::out_of_memory);
    return impl_->create_mapped_buffer(bytes);
}

Queue Device::create_queue(QueueOptions options) const {
    require_valid("Device::create_queue");
    return Queue(impl_->create_queue(options.timing), impl_);
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

bool Device::peer_access(const Device& other) const {
    require_valid("Device::peer_access");
    if (!other.valid()) detail::raise_argument("Device::peer_access", "the other Device is empty");
    return other.impl_ != impl_ && impl_->can_copy_peer(*other.impl_);
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
