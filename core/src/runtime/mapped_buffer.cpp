// MappedBuffer and HostAccess: argument checks, and the host's turns with mapped memory.
#include <dualrt/device.hpp>
#include <dualrt/mapped_buffer.hpp>
#include <dualrt/queue.hpp>

#include "backend/backend.hpp"
#include "backend/backend_access.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <exception>
#include <string>
#include <utility>

namespace dualrt {

// One turn of the host: the memory, the queue it was taken on (kept alive, since the backend ends
// the turn on the same queue) and the host's span of the memory.
struct HostAccessBase::Turn {
    std::shared_ptr<backend::MappedBufferImpl> buffer;
    std::shared_ptr<backend::QueueImpl> queue;
    void* data = nullptr;
    std::size_t bytes = 0;
};

void HostAccessBase::End::operator()(Turn* turn) const noexcept {
    std::unique_ptr<Turn> owned(turn);
    try {
        owned->buffer->end_host_access(*owned->queue);
    } catch (const std::exception& error) {
        // A destructor must not throw; release() is the call that reports.
        try {
            detail::log().error("ending the host's turn with a mapped buffer failed: {}",
                                error.what());
        } catch (...) {  // logging itself failed: nothing more can be done here
        }
    } catch (...) {
        try {
            detail::log().error("ending the host's turn with a mapped buffer failed");
        } catch (...) {
        }
    }
}

void HostAccessBase::release() {
    if (!turn_) return;
    // Out of turn_ first: the turn is over whether or not the backend succeeds.
    std::unique_ptr<Turn> turn(turn_.release());
    turn->buffer->end_host_access(*turn->queue);
}

void* HostAccessBase::turn_data() const noexcept { return turn_ ? turn_->data : nullptr; }

std::size_t HostAccessBase::turn_bytes() const noexcept { return turn_ ? turn_->bytes : 0; }

MappedBufferBase::MappedBufferBase(std::shared_ptr<backend::MappedBufferImpl> impl)
    : impl_(std::move(impl)) {}

std::size_t MappedBufferBase::bytes() const { return impl_ ? impl_->bytes() : 0; }

bool MappedBufferBase::host_held() const { return impl_ && impl_->host_held(); }

NativeHandle MappedBufferBase::native_handle() const {
    if (!impl_) detail::raise_argument("MappedBuffer::native_handle", "the MappedBuffer is empty");
    return impl_->native_handle();
}

BufferView MappedBufferBase::device_bytes() const {
    if (!impl_) detail::raise_argument("MappedBuffer::device_view", "the MappedBuffer is empty");
    return BufferView(impl_->device_buffer(), 0, impl_->bytes());
}

HostAccessBase MappedBufferBase::host_turn(Queue& queue) const {
    const char* op = "MappedBuffer::host";
    if (!impl_) detail::raise_argument(op, "the MappedBuffer is empty");
    if (!queue.valid()) detail::raise_argument(op, "the Queue is empty (default-constructed)");
    const backend::DeviceImpl& owner = impl_->device();
    const backend::DeviceImpl& runs_on = detail::backend_of(queue)->device();
    if (&owner != &runs_on)
        detail::raise_argument(op, "the mapped buffer belongs to device " +
                                       detail::device_label(owner.info()) +
                                       ", but the queue runs on " +
                                       detail::device_label(runs_on.info()) +
                                       "; the host's turn waits for a queue of the buffer's "
                                       "device");
    const auto already_held = [&] {
        detail::raise_argument(op, "the host already holds this mapped buffer of " +
                                       detail::format_bytes(impl_->bytes()) +
                                       " (a HostAccess of it is alive); release that one first");
    };
    if (impl_->host_held()) already_held();

    auto turn = std::make_unique<HostAccessBase::Turn>();
    turn->buffer = impl_;
    turn->queue = detail::backend_of(queue);
    turn->bytes = impl_->bytes();
    turn->data = impl_->begin_host_access(*turn->queue);
    if (turn->data == nullptr) already_held();  // another thread took the turn since the check
    return HostAccessBase(
        std::unique_ptr<HostAccessBase::Turn, HostAccessBase::End>(turn.release()));
}

}  // namespace dualrt
