// The one door from the library's own code (the core, the Pipeline, white-box tests) to the
// backend objects behind the public classes. The public headers name backend types only as
// forward declarations and expose no accessor: users reach the driver through native handles
// (interop.hpp), never through backend:: types, which are not installed. Internal.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>
#include <dualrt/event.hpp>
#include <dualrt/host_buffer.hpp>
#include <dualrt/kernel.hpp>
#include <dualrt/mapped_buffer.hpp>
#include <dualrt/queue.hpp>

#include <memory>

namespace dualrt::detail {

// A friend of each public class that holds a backend object.
struct BackendAccess {
    static const std::shared_ptr<backend::DeviceImpl>& of(const Device& device) noexcept {
        return device.impl_;
    }
    static const std::shared_ptr<backend::QueueImpl>& of(const Queue& queue) noexcept {
        return queue.impl_;
    }
    static const std::shared_ptr<backend::EventImpl>& of(const Event& event) noexcept {
        return event.impl_;
    }
    static const std::shared_ptr<backend::KernelImpl>& of(const Kernel& kernel) noexcept {
        return kernel.impl_;
    }
    static const std::shared_ptr<backend::BufferImpl>& of(const BufferView& view) noexcept {
        return view.impl_;
    }
    static const std::shared_ptr<backend::MappedBufferImpl>& of(
        const MappedBufferBase& buffer) noexcept {
        return buffer.impl_;
    }
    template <typename T>
    static const std::shared_ptr<backend::HostBufferImpl>& of(
        const HostBuffer<T>& buffer) noexcept {
        return buffer.impl_;
    }
};

// The backend object behind `object` (null for an empty one).
template <typename Object>
decltype(auto) backend_of(const Object& object) noexcept {
    return BackendAccess::of(object);
}

}  // namespace dualrt::detail
