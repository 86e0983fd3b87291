// Recording into OpenCL command buffers (cl_khr_command_buffer): each command recorded after the
// previous one's sync point, so the buffer keeps the in-order queue's order; a replay is one
// clEnqueueCommandBufferKHR. And which devices take this path (recording_support).
#include "fill.hpp"
#include "recording_parts.hpp"
#include "support/environment.hpp"
#include "support/raise.hpp"

#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace dualrt::opencl {
namespace {

// cl_khr_command_buffer's names and values (cl_ext.h), spelt here so that the backend does not
// depend on which version of the headers it is built with.
constexpr const char* command_buffer_extension = "cl_khr_command_buffer";
constexpr cl_uint known_version = CL_MAKE_VERSION(0, 9, 0);
constexpr cl_device_info capabilities_query = 0x12A9;  // CL_DEVICE_COMMAND_BUFFER_CAPABILITIES
constexpr cl_device_info required_properties_query = 0x12AA;  // ..._REQUIRED_QUEUE_PROPERTIES
constexpr cl_bitfield simultaneous_use_capability = 1 << 2;
constexpr cl_ulong flags_property = 0x1293;  // CL_COMMAND_BUFFER_FLAGS_KHR
constexpr cl_ulong simultaneous_use_flag = 1 << 0;

// The version of `name` among the device's extensions (CL_DEVICE_EXTENSIONS_WITH_VERSION, an
// OpenCL 3.0 query), or 0 where the device does not say.
cl_version extension_version(const cl::Device& device, const char* name) {
    std::size_t bytes = 0;
    if (clGetDeviceInfo(device(), CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &bytes) !=
        CL_SUCCESS)
        return 0;
    std::vector<cl_name_version> list(bytes / sizeof(cl_name_version));
    if (clGetDeviceInfo(device(), CL_DEVICE_EXTENSIONS_WITH_VERSION, bytes, list.data(),
                        nullptr) != CL_SUCCESS)
        return 0;
    for (const cl_name_version& entry : list)
        if (std::string(entry.name) == name) return entry.version;
    return 0;
}

std::string version_text(cl_version version) {
    return std::to_string(CL_VERSION_MAJOR(version)) + "." +
           std::to_string(CL_VERSION_MINOR(version)) + "." +
           std::to_string(CL_VERSION_PATCH(version));
}

}  // namespace

namespace recording {
namespace {

class CommandBufferRecording final : public backend::RecordingImpl {
public:
    CommandBufferRecording(std::shared_ptr<QueueImpl> queue, const CommandBufferApi& api,
                           cl_command_buffer_khr buffer, RecordedKernels::Kept kept)
        : queue_(std::move(queue)), api_(api), buffer_(buffer), kept_(std::move(kept)) {}
    ~CommandBufferRecording() override { api_.release(buffer_); }
    CommandBufferRecording(const CommandBufferRecording&) = delete;
    CommandBufferRecording& operator=(const CommandBufferRecording&) = delete;

    // On the queue it was recorded for, the command buffer in that queue's order. On another
    // queue, the buffer still runs on its own (the extension ties it to one queue), after a
    // marker of the other queue, which then waits for it.
    backend::EventPtr replay(backend::QueueImpl& target) override {
        if (&target == queue_.get())
            return queue_->enqueue_replay([&](const cl::CommandQueue&, cl::Event* event) {
                enqueue(0, nullptr, event);
            });
        auto& other = static_cast<QueueImpl&>(target);
        const backend::EventPtr ready = other.mark();
        const auto ready_native = reinterpret_cast<cl_event>(ready->native_handle());
        cl::Event done;
        queue_->enqueue_replay([&](const cl::CommandQueue& queue, cl::Event*) {
            enqueue(1, &ready_native, &done);
            CL_CHECK(queue.flush(), "submitting a replayed command buffer");
        });
        return other.enqueue_replay([&](const cl::CommandQueue& queue, cl::Event* event) {
            const cl_event wait = done();
            cl_event made = nullptr;
            check(clEnqueueBarrierWithWaitList(queue(), 1, &wait, event ? &made : nullptr),
                  "clEnqueueBarrierWithWaitList",
                  [] { return std::string("waiting for a command buffer replayed for it"); });
            if (event != nullptr) *event = cl::Event(made);
        });
    }

private:
    void enqueue(cl_uint waits, const cl_event* wait_list, cl::Event* event) {
        std::lock_guard<std::mutex> lock(mutex_);
        // Without simultaneous use the buffer may not be enqueued while an earlier enqueue of it
        // is pending: the host waits for that one first.
        if (!api_.simultaneous_use && last_()) CL_CHECK_SYNC(last_.wait(), "waiting for the "
                                                             "previous replay of a command "
                                                             "buffer");
        const bool keep = event != nullptr || !api_.simultaneous_use;
        cl_event made = nullptr;
        check(api_.enqueue(0, nullptr, buffer_, waits, wait_list, keep ? &made : nullptr),
              "clEnqueueCommandBufferKHR", [] { return std::string("replaying a recording"); });
        if (!keep) return;
        cl::Event done(made);
        if (!api_.simultaneous_use) last_ = done;
        if (event != nullptr) *event = std::move(done);
    }

    std::shared_ptr<QueueImpl> queue_;
    CommandBufferApi api_;
    cl_command_buffer_khr buffer_;
    RecordedKernels::Kept kept_;
    std::mutex mutex_;
    cl::Event last_;  // the last enqueue's end, kept where the device lacks simultaneous use
};

class CommandBufferRecorder final : public backend::RecorderImpl {
public:
    CommandBufferRecorder(std::shared_ptr<DeviceImpl> device, std::shared_ptr<QueueImpl> queue,
                          const CommandBufferApi& api)
        : device_(std::move(device)), queue_(std::move(queue)), api_(api) {
        const cl_ulong properties[] = {flags_property,
                                       api_.simultaneous_use ? simultaneous_use_flag : 0, 0};
        const cl_command_queue queue_list[] = {queue_->cl_queue()()};
        cl_int status = CL_SUCCESS;
        buffer_ = api_.create(1, queue_list, properties, &status);
        check(status, "clCreateCommandBufferKHR",
              [&] { return "creating a command buffer on " + device_->describe(); });
    }
    ~CommandBufferRecorder() override {
        if (buffer_ != nullptr) api_.release(buffer_);
    }
    CommandBufferRecorder(const CommandBufferRecorder&) = delete;
    CommandBufferRecorder& operator=(const CommandBufferRecorder&) = delete;

    std::size_t add_lane() override {
        lanes_.push_back(Lane{});
        // Its commands come after lane 0's so far.
        if (lanes_[0].last) lanes_.back().waits.push_back(*lanes_[0].last);
        return lanes_.size() - 1;
    }
    void wait(std::size_t lane, Point point) override {
        lanes_[lane].waits.push_back(sync_points_[point]);
    }
    Point copy_to_device(std::size_t lane, backend::BufferImpl& dst, std::size_t dst_offset,
                         backend::HostBufferImpl& host, std::size_t host_offset,
                         std::size_t bytes) override {
        const cl::Buffer& from = host_memory(host, "Queue::copy (host to device)");
        return record(lane, [&](cl_uint waits, const cl_uint* wait_list, cl_uint* point) {
            return api_.copy_buffer(buffer_, nullptr, from(), ours(dst).cl_buffer()(),
                                    host_offset, dst_offset, bytes, waits, wait_list, point,
                                    nullptr);
        }, "clCommandCopyBufferKHR");
    }
    Point copy_to_host(std::size_t lane, backend::HostBufferImpl& host, std::size_t host_offset,
                       backend::BufferImpl& src, std::size_t src_offset,
                       std::size_t bytes) override {
        const cl::Buffer& to = host_memory(host, "Queue::copy (device to host)");
        return record(lane, [&](cl_uint waits, const cl_uint* wait_list, cl_uint* point) {
            return api_.copy_buffer(buffer_, nullptr, ours(src).cl_buffer()(), to(), src_offset,
                                    host_offset, bytes, waits, wait_list, point, nullptr);
        }, "clCommandCopyBufferKHR");
    }
    Point copy_device(std::size_t lane, backend::BufferImpl& dst, std::size_t dst_offset,
                      backend::BufferImpl& src, std::size_t src_offset,
                      std::size_t bytes) override {
        return record(lane, [&](cl_uint waits, const cl_uint* wait_list, cl_uint* point) {
            return api_.copy_buffer(buffer_, nullptr, ours(src).cl_buffer()(),
                                    ours(dst).cl_buffer()(), src_offset, dst_offset, bytes,
                                    waits, wait_list, point, nullptr);
        }, "clCommandCopyBufferKHR");
    }
    Point fill(std::size_t lane, backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
               const void* pattern, std::size_t pattern_size) override {
        const FillPattern wide = widened_pattern(pattern, pattern_size, offset, bytes);
        return record(lane, [&](cl_uint waits, const cl_uint* wait_list, cl_uint* point) {
            return api_.fill_buffer(buffer_, nullptr, ours(dst).cl_buffer()(),
                                    wide.bytes.data(), wide.size, offset, bytes, waits,
                                    wait_list, point, nullptr);
        }, "clCommandFillBufferKHR");
    }
    Point launch(std::size_t lane, backend::KernelImpl& kernel,
                 const backend::LaunchGeometry& geometry, backend::KernelArgs args) override {
        const cl_kernel object = kernels_.with(state_of(kernel), args);
        const NDRange range(geometry);
        return record(lane, [&](cl_uint waits, const cl_uint* wait_list, cl_uint* point) {
            return api_.ndrange_kernel(buffer_, nullptr, nullptr, object, range.dims, nullptr,
                                       range.global.data(), range.local.data(), waits,
                                       wait_list, point, nullptr);
        }, "clCommandNDRangeKernelKHR");
    }

    std::shared_ptr<backend::RecordingImpl> finish(const std::shared_ptr<backend::RecordingImpl>&,
                                                   bool& updated) override {
        check(api_.finalize(buffer_), "clFinalizeCommandBufferKHR",
              [&] { return "finishing a command buffer on " + device_->describe(); });
        updated = false;  // the extension's mutable commands are another extension
        return std::make_shared<CommandBufferRecording>(queue_, api_,
                                                        std::exchange(buffer_, nullptr),
                                                        kernels_.take());
    }

private:
    // Records one command of `lane` after the lane's previous one and the points it was told to
    // wait for; its sync point is the command's point.
    template <typename Command>
    Point record(std::size_t lane, Command&& command, const char* call) {
        Lane& on = lanes_[lane];
        std::vector<cl_uint> waits = std::move(on.waits);
        on.waits.clear();
        if (on.last) waits.push_back(*on.last);
        cl_uint point = 0;
        check(command(static_cast<cl_uint>(waits.size()), waits.empty() ? nullptr : waits.data(),
                      &point),
              call, [&] { return "recording a command into a command buffer on " +
                                 device_->describe(); });
        on.last = point;
        sync_points_.push_back(point);
        return sync_points_.size() - 1;
    }
    // A command buffer copies between memory objects only, so a host copy uses the pinned
    // allocation's own object, which stays mapped for the host. Using a mapped object in a
    // command is defined only where the map is the memory itself: a device that shares the
    // host's memory.
    const cl::Buffer& host_memory(backend::HostBufferImpl& host, const char* operation) const {
        if (!device_->info().shares_host_memory)
            detail::raise_argument(operation,
                                   device_->describe() + " records into OpenCL command buffers, "
                                   "which copy host memory only through its memory object, "
                                   "and on a device with memory of its own that object is "
                                   "mapped for the host; record copies between device buffers, "
                                   "or set DUALRT_RECORDING=command_list");
        return ours(host).cl_buffer();
    }

    std::shared_ptr<DeviceImpl> device_;
    std::shared_ptr<QueueImpl> queue_;
    CommandBufferApi api_;
    cl_command_buffer_khr buffer_ = nullptr;
    // A lane's last sync point, and the points its next command waits for besides.
    struct Lane {
        std::optional<cl_uint> last;
        std::vector<cl_uint> waits;
    };
    std::vector<Lane> lanes_ = std::vector<Lane>(1);
    std::vector<cl_uint> sync_points_;  // of each point
    RecordedKernels kernels_{*device_};
};

}  // namespace

std::unique_ptr<backend::RecorderImpl> command_buffer_recorder(std::shared_ptr<DeviceImpl> device,
                                                               std::shared_ptr<QueueImpl> queue,
                                                               const CommandBufferApi& api) {
    return std::make_unique<CommandBufferRecorder>(std::move(device), std::move(queue), api);
}

}  // namespace recording

RecordingSupport recording_support(const cl::Device& device, const std::string& extensions) {
    RecordingSupport support;
    if (extensions.find(command_buffer_extension) == std::string::npos) return support;
    bool forced = false;
    try {
        forced = detail::command_lists_forced();
    } catch (const Error&) {
        // A bad value is reported by select() (check_environment); listing devices goes on.
    }
    if (forced) {
        support.why_not = "DUALRT_RECORDING=command_list";
        return support;
    }
    const cl_version version = extension_version(device, command_buffer_extension);
    if (version != known_version) {
        support.why_not = std::string(command_buffer_extension) + " " +
                          (version == 0 ? "of an unknown version" : version_text(version)) +
                          ", whose interface this build does not know (it knows " +
                          version_text(known_version) + ")";
        return support;
    }
    cl_command_queue_properties required = 0;
    cl_bitfield capabilities = 0;
    clGetDeviceInfo(device(), required_properties_query, sizeof required, &required, nullptr);
    clGetDeviceInfo(device(), capabilities_query, sizeof capabilities, &capabilities, nullptr);
    if (required != 0) {
        support.why_not = "its command buffers need queue properties dualrt's queues lack";
        return support;
    }
    cl_platform_id platform = nullptr;
    clGetDeviceInfo(device(), CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
    const auto entry = [&](const char* name) {
        return clGetExtensionFunctionAddressForPlatform(platform, name);
    };
    CommandBufferApi api{};
    api.create = reinterpret_cast<decltype(api.create)>(entry("clCreateCommandBufferKHR"));
    api.finalize = reinterpret_cast<decltype(api.finalize)>(entry("clFinalizeCommandBufferKHR"));
    api.release = reinterpret_cast<decltype(api.release)>(entry("clReleaseCommandBufferKHR"));
    api.enqueue = reinterpret_cast<decltype(api.enqueue)>(entry("clEnqueueCommandBufferKHR"));
    api.copy_buffer = reinterpret_cast<decltype(api.copy_buffer)>(entry("clCommandCopyBufferKHR"));
    api.fill_buffer = reinterpret_cast<decltype(api.fill_buffer)>(entry("clCommandFillBufferKHR"));
    api.ndrange_kernel =
        reinterpret_cast<decltype(api.ndrange_kernel)>(entry("clCommandNDRangeKernelKHR"));
    if (!api.create || !api.finalize || !api.release || !api.enqueue || !api.copy_buffer ||
        !api.fill_buffer || !api.ndrange_kernel) {
        support.why_not = "the platform does not give every entry point of " +
                          std::string(command_buffer_extension);
        return support;
    }
    api.simultaneous_use = (capabilities & simultaneous_use_capability) != 0;
    support.path = RecordingPath::command_buffer;
    support.api = api;
    return support;
}

}  // namespace dualrt::opencl
