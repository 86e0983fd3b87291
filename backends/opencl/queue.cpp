// QueueImpl: copies, fills, kernel launches, markers and barriers on one cl::CommandQueue.
#include "queue.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "device.hpp"
#include "errors.hpp"
#include "event.hpp"
#include "log.hpp"
#include "program.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>

namespace dualrt::opencl {
namespace {

// The core checks that every object it hands a queue belongs to the queue's device, hence to
// this backend, so these downcasts are safe.
BufferImpl& ours(backend::BufferImpl& buffer) { return static_cast<BufferImpl&>(buffer); }
KernelImpl& ours(backend::KernelImpl& kernel) { return static_cast<KernelImpl&>(kernel); }
EventImpl& ours(backend::EventImpl& event) { return static_cast<EventImpl&>(event); }

cl::NDRange nd_range(int dims, const std::size_t (&extent)[3]) {
    switch (dims) {
    case 1:
        return cl::NDRange(extent[0]);
    case 2:
        return cl::NDRange(extent[0], extent[1]);
    default:
        return cl::NDRange(extent[0], extent[1], extent[2]);
    }
}

std::string extent_text(int dims, const std::size_t (&extent)[3]) {
    std::string text = std::to_string(extent[0]);
    for (int axis = 1; axis < dims; ++axis) text += "x" + std::to_string(extent[axis]);
    return text;
}

template <std::size_t N>
void fill_with(const cl::CommandQueue& queue, const cl::Buffer& buffer, const void* pattern,
               std::size_t offset, std::size_t bytes, cl::Event* event) {
    std::array<unsigned char, N> value;
    static_assert(sizeof value == N, "the pattern must be exactly N bytes");
    std::memcpy(value.data(), pattern, N);
    queue.enqueueFillBuffer(buffer, value, offset, bytes, nullptr, event);
}

// clEnqueueFillBuffer with a pattern of pattern_size bytes (a power of two up to 128, checked by
// the core). CLHPP takes the pattern's size from its type, hence one instantiation per size.
void enqueue_fill(const cl::CommandQueue& queue, const cl::Buffer& buffer, const void* pattern,
                  std::size_t pattern_size, std::size_t offset, std::size_t bytes,
                  cl::Event* event) {
    switch (pattern_size) {
    case 1: return fill_with<1>(queue, buffer, pattern, offset, bytes, event);
    case 2: return fill_with<2>(queue, buffer, pattern, offset, bytes, event);
    case 4: return fill_with<4>(queue, buffer, pattern, offset, bytes, event);
    case 8: return fill_with<8>(queue, buffer, pattern, offset, bytes, event);
    case 16: return fill_with<16>(queue, buffer, pattern, offset, bytes, event);
    case 32: return fill_with<32>(queue, buffer, pattern, offset, bytes, event);
    case 64: return fill_with<64>(queue, buffer, pattern, offset, bytes, event);
    case 128: return fill_with<128>(queue, buffer, pattern, offset, bytes, event);
    default: throw cl::Error(CL_INVALID_VALUE, "clEnqueueFillBuffer");
    }
}

}  // namespace

QueueImpl::QueueImpl(std::shared_ptr<DeviceImpl> device) : device_(std::move(device)) {
    queue_ = CL_CHECK(cl::CommandQueue(device_->context(), device_->cl_device(),
                                       cl::QueueProperties::Profiling),
                      "creating a queue with profiling on " + device_->describe());
}

const backend::DeviceImpl& QueueImpl::device() const { return *device_; }

std::string QueueImpl::describe(const std::string& what) const {
    return "queue of " + device_->describe() + ": " + what;
}

backend::EventPtr QueueImpl::enqueued(cl::Event event, bool wait) {
    auto result = std::make_shared<EventImpl>(device_, queue_, std::move(event), false);
    if (wait) result->wait();  // names the failed command's status, unlike clFinish
    return result;
}

backend::EventPtr QueueImpl::copy_to_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                            const void* src, std::size_t bytes, Sync sync) {
    cl::Event event;
    const cl_bool blocking = sync == Sync::blocking ? CL_TRUE : CL_FALSE;
    CL_CHECK(queue_.enqueueWriteBuffer(ours(dst).cl_buffer(), blocking, dst_offset, bytes, src,
                                       nullptr, &event),
             describe("copying " + detail::format_bytes(bytes) +
                      " from the host to a device buffer at offset " + std::to_string(dst_offset)));
    return enqueued(std::move(event), false);
}

backend::EventPtr QueueImpl::copy_to_host(void* dst, backend::BufferImpl& src,
                                          std::size_t src_offset, std::size_t bytes, Sync sync) {
    cl::Event event;
    const cl_bool blocking = sync == Sync::blocking ? CL_TRUE : CL_FALSE;
    CL_CHECK(queue_.enqueueReadBuffer(ours(src).cl_buffer(), blocking, src_offset, bytes, dst,
                                      nullptr, &event),
             describe("copying " + detail::format_bytes(bytes) +
                      " from a device buffer at offset " + std::to_string(src_offset) +
                      " to the host"));
    return enqueued(std::move(event), false);
}

backend::EventPtr QueueImpl::copy_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                         backend::BufferImpl& src, std::size_t src_offset,
                                         std::size_t bytes, Sync sync) {
    cl::Event event;
    CL_CHECK(queue_.enqueueCopyBuffer(ours(src).cl_buffer(), ours(dst).cl_buffer(), src_offset,
                                      dst_offset, bytes, nullptr, &event),
             describe("copying " + detail::format_bytes(bytes) + " between device buffers, from "
                      "offset " + std::to_string(src_offset) + " to offset " +
                      std::to_string(dst_offset)));
    return enqueued(std::move(event), sync == Sync::blocking);
}

backend::EventPtr QueueImpl::fill(backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
                                  const void* pattern, std::size_t pattern_size, Sync sync) {
    cl::Event event;
    CL_CHECK(enqueue_fill(queue_, ours(dst).cl_buffer(), pattern, pattern_size, offset, bytes,
                          &event),
             describe("filling " + detail::format_bytes(bytes) + " at offset " +
                      std::to_string(offset) + " with a " + std::to_string(pattern_size) +
                      "-byte pattern"));
    return enqueued(std::move(event), sync == Sync::blocking);
}

backend::EventPtr QueueImpl::launch(backend::KernelImpl& kernel,
                                    const backend::LaunchGeometry& geometry,
                                    const std::vector<backend::KernelArg>& args) {
    KernelState& state = ours(kernel).state();
    const auto arg_context = [&](std::size_t index) {
        const auto& params = state.params;
        const std::string param = index < params.size() && !params[index].name.empty()
                                      ? " ('" + params[index].name + "')"
                                      : "";
        return describe("setting argument " + std::to_string(index) + param + " of kernel '" +
                        state.name + "'");
    };

    // Sub-buffers made for views must live until the launch is enqueued (clSetKernelArg does not
    // retain them; clEnqueueNDRangeKernel does).
    std::vector<cl::Buffer> views;
    views.reserve(args.size());
    cl::Event event;
    {
        std::lock_guard<std::mutex> lock(state.launch_mutex);
        for (std::size_t i = 0; i < args.size(); ++i) {
            const backend::KernelArg& arg = args[i];
            const auto index = static_cast<cl_uint>(i);
            switch (arg.kind) {
            case backend::ParamInfo::Kind::buffer:
                views.push_back(ours(*arg.buffer).kernel_argument(arg.offset, arg.bytes));
                CL_CHECK(state.kernel.setArg(index, views.back()), arg_context(i));
                break;
            case backend::ParamInfo::Kind::local:
                CL_CHECK(state.kernel.setArg(index, arg.bytes, nullptr), arg_context(i));
                break;
            case backend::ParamInfo::Kind::scalar:
            case backend::ParamInfo::Kind::unknown:
                CL_CHECK(state.kernel.setArg(index, arg.value.size(), arg.value.data()),
                         arg_context(i));
                break;
            }
        }
        CL_CHECK(queue_.enqueueNDRangeKernel(state.kernel, cl::NullRange,
                                             nd_range(geometry.dims, geometry.global),
                                             nd_range(geometry.dims, geometry.local), nullptr,
                                             &event),
                 describe("launching kernel '" + state.name + "' over " +
                          extent_text(geometry.dims, geometry.global) + " work-items in groups of " +
                          extent_text(geometry.dims, geometry.local)));
    }
    return enqueued(std::move(event), false);
}

backend::EventPtr QueueImpl::record() {
    cl::Event event;
    CL_CHECK(queue_.enqueueMarkerWithWaitList(nullptr, &event), describe("recording an event"));
    return std::make_shared<EventImpl>(device_, queue_, std::move(event), true);
}

void QueueImpl::wait_for(backend::EventImpl& event) {
    EventImpl& other = ours(event);
    // OpenCL requires the waited-on command to be flushed when it is in another queue.
    other.flush_queue();
    const std::vector<cl::Event> wait_list{other.cl_event()};
    CL_CHECK(queue_.enqueueBarrierWithWaitList(&wait_list, nullptr),
             describe("waiting for an event of another queue"));
}

void QueueImpl::finish() { CL_CHECK(queue_.finish(), describe("finishing")); }

NativeHandle QueueImpl::native_handle() const {
    return reinterpret_cast<NativeHandle>(queue_());
}

}  // namespace dualrt::opencl
