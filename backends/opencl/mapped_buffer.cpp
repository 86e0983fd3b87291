// MappedBufferImpl: map and unmap around the host's turns with a CL_MEM_ALLOC_HOST_PTR buffer.
#include "mapped_buffer.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "device.hpp"
#include "support/raise.hpp"

#include <string>
#include <utility>

namespace dualrt::opencl {
namespace {

// The caller's cl_command_queue, retained for the call. QueueImpl::native_handle() is its
// cl_command_queue by contract, so the map is ordered after the work enqueued there.
cl::CommandQueue command_queue(backend::QueueImpl& queue, const std::string& context) {
    const auto handle = reinterpret_cast<cl_command_queue>(queue.native_handle());
    return CL_CHECK(cl::CommandQueue(handle, true), context);
}

}  // namespace

MappedBufferImpl::MappedBufferImpl(const std::shared_ptr<DeviceImpl>& device, std::size_t bytes)
    : buffer_(std::make_shared<BufferImpl>(device, bytes, BufferImpl::mapped_host)) {}

const backend::DeviceImpl& MappedBufferImpl::device() const { return buffer_->device(); }

std::size_t MappedBufferImpl::bytes() const { return buffer_->bytes(); }

std::shared_ptr<backend::BufferImpl> MappedBufferImpl::device_buffer() const { return buffer_; }

bool MappedBufferImpl::host_held() const { return buffer_->held_by_host(); }

std::string MappedBufferImpl::describe(const char* what) const {
    const auto& owner = static_cast<const DeviceImpl&>(buffer_->device());
    return std::string(what) + " a mapped host buffer of " + detail::format_bytes(bytes()) +
           " on " + owner.describe();
}

void* MappedBufferImpl::begin_host_access(backend::QueueImpl& queue) {
    if (!buffer_->claim_for_host()) return nullptr;
    try {
        const cl::CommandQueue commands = command_queue(queue, describe("mapping"));
        // Blocking, and on the in-order queue the caller named: it waits for the kernels enqueued
        // there, and a map is where OpenCL makes their writes visible to the host.
        host_ = CL_CHECK_ALLOC(commands.enqueueMapBuffer(buffer_->cl_buffer_for_mapping(), CL_TRUE,
                                                         CL_MAP_READ | CL_MAP_WRITE, 0, bytes()),
                               describe("mapping"));
    } catch (...) {
        buffer_->return_to_device();
        throw;
    }
    return host_;
}

void MappedBufferImpl::end_host_access(backend::QueueImpl& queue) {
    void* const host = std::exchange(host_, nullptr);
    try {
        const cl::CommandQueue commands = command_queue(queue, describe("unmapping"));
        cl::Event unmapped;
        CL_CHECK(commands.enqueueUnmapMemObject(buffer_->cl_buffer_for_mapping(), host, nullptr,
                                                &unmapped),
                 describe("unmapping"));
        // Waited for, not just ordered before this queue's later commands: commands of other
        // queues must see the host's writes too, and only a completed unmap guarantees that.
        // The flush hands the unmap to the device before the wait (not every driver's wait does).
        CL_CHECK(commands.flush(), describe("unmapping"));
        CL_CHECK(unmapped.wait(), describe("waiting for the unmap of"));
    } catch (...) {
        buffer_->return_to_device();  // the turn is over either way (see backend.hpp)
        throw;
    }
    buffer_->return_to_device();
}

NativeHandle MappedBufferImpl::native_handle() const { return buffer_->native_handle(); }

}  // namespace dualrt::opencl
