#include "recording.hpp"

#include "buffer.hpp"
#include "check.hpp"
#include "device.hpp"
#include "fill.hpp"
#include "kernel_arguments.hpp"
#include "pocl_launch_guard.hpp"
#include "program.hpp"
#include "queue.hpp"
#include "support/environment.hpp"
#include "support/raise.hpp"

#include <array>
#include <map>
#include <mutex>
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

BufferImpl& ours(backend::BufferImpl& buffer) { return static_cast<BufferImpl&>(buffer); }
HostBufferImpl& ours(backend::HostBufferImpl& buffer) {
    return static_cast<HostBufferImpl&>(buffer);
}
KernelState& state_of(backend::KernelImpl& kernel) {
    return static_cast<KernelImpl&>(kernel).state();
}

// Throws dualrt::Error for a failed C call; `context()` names what it was doing, built only then.
template <typename Context>
void check(cl_int status, const char* call, Context&& context) {
    if (status != CL_SUCCESS)
        raise_cl_error(cl::Error(status, call), call, context(), __FILE__, __LINE__,
                       CallKind::other);
}

// "argument 2 ('out') of kernel 'saxpy'", for errors while recording a launch.
std::string argument_text(const KernelState& state, std::size_t index) {
    const auto& params = state.params;
    const std::string param = index < params.size() && !params[index].name.empty()
                                  ? " ('" + params[index].name + "')"
                                  : "";
    return "setting argument " + std::to_string(index) + param + " of kernel '" + state.name +
           "' for a recording";
}

// The ND-range of a launch, as OpenCL's C calls take it.
struct NDRange {
    cl_uint dims = 1;
    std::array<std::size_t, 3> global{1, 1, 1}, local{1, 1, 1};
    explicit NDRange(const backend::LaunchGeometry& geometry)
        : dims(static_cast<cl_uint>(geometry.dims)) {
        for (std::size_t d = 0; d < 3; ++d) {
            global[d] = geometry.global[d];
            local[d] = geometry.local[d];
        }
    }
};

// The kernel objects of a recording's launches, each with its arguments set once: one per kernel
// and argument list, so that launches that repeat their arguments (a loop of one kernel, a
// ping-pong of two buffers) share one, and no replay sets an argument. Command buffers need them
// too: PoCL 3.1 runs a recorded launch with the arguments its kernel object holds when the
// buffer runs, not those it held when the launch was recorded (the extension's rule).
class RecordedKernels {
public:
    explicit RecordedKernels(const DeviceImpl& device) : device_(device) {}

    cl_kernel with(KernelState& state, backend::KernelArgs args) {
        const KernelState* address = &state;
        std::string key(reinterpret_cast<const char*>(&address), sizeof address);
        for (const backend::KernelArg& arg : args) {
            const std::size_t words[] = {static_cast<std::size_t>(arg.kind),
                                         reinterpret_cast<std::size_t>(arg.buffer), arg.offset,
                                         arg.bytes};
            key.append(reinterpret_cast<const char*>(words), sizeof words);
            if (arg.kind == backend::ParamInfo::Kind::scalar ||
                arg.kind == backend::ParamInfo::Kind::unknown)
                key.append(static_cast<const char*>(arg.value), arg.bytes);
        }
        auto found = kernels_.find(key);
        if (found != kernels_.end()) return found->second();
        const auto program = CL_CHECK(state.kernel.getInfo<CL_KERNEL_PROGRAM>(),
                                      "finding the program of kernel '" + state.name + "'");
        cl::Kernel own = CL_CHECK(cl::Kernel(program, state.name.c_str()),
                                  "making a kernel object of '" + state.name +
                                      "' for a recording on " + device_.describe());
        set_kernel_arguments(
            own, args, [&]() -> cl::Buffer& { return sub_buffers_.emplace_back(); },
            [&](std::size_t index) { return argument_text(state, index); });
        return kernels_.emplace(std::move(key), std::move(own)).first->second();
    }

    // What the recording keeps for as long as it lives: the kernel objects and the sub-buffers
    // that pass their views.
    struct Kept {
        std::vector<cl::Kernel> kernels;
        std::vector<cl::Buffer> sub_buffers;
    };
    Kept take() {
        Kept kept;
        for (auto& entry : kernels_) kept.kernels.push_back(std::move(entry.second));
        kept.sub_buffers = std::move(sub_buffers_);
        return kept;
    }

private:
    const DeviceImpl& device_;
    std::map<std::string, cl::Kernel> kernels_;  // by kernel and argument list
    std::vector<cl::Buffer> sub_buffers_;
};

// ---------------------------------------------------------------------------------------------
// Command buffers: each command recorded after the previous one's sync point, so the buffer
// keeps the in-order queue's order; a replay is one clEnqueueCommandBufferKHR.

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

// ---------------------------------------------------------------------------------------------
// Command lists: every command prepared when recorded (memory objects resolved, a fill's pattern
// widened, a launch's arguments set once on a kernel object of the recording's own), so that a
// replay is one driver call per command and nothing else: no event, no argument, no lookup.

struct PreparedCommand {
    enum class Kind { write, read, copy, fill, launch };
    Kind kind = Kind::copy;
    cl_mem target = nullptr;  // what the command writes (read: the buffer read from)
    cl_mem source = nullptr;  // copy: the buffer read from
    std::size_t target_offset = 0, source_offset = 0, bytes = 0;
    void* host = nullptr;  // write: the source; read: the destination
    FillPattern pattern;
    cl_kernel kernel = nullptr;  // a kernel object of the recording, its arguments set
    const std::string* kernel_name = nullptr;
    NDRange range{backend::LaunchGeometry{}};
};

class CommandListRecording final : public backend::RecordingImpl {
public:
    CommandListRecording(std::shared_ptr<DeviceImpl> device,
                         std::vector<PreparedCommand> commands, RecordedKernels::Kept kept)
        : device_(std::move(device)), commands_(std::move(commands)), kept_(std::move(kept)) {}

    backend::EventPtr replay(backend::QueueImpl& target) override {
        return static_cast<QueueImpl&>(target).enqueue_replay(
            [&](const cl::CommandQueue& queue, cl::Event* event) {
                for (std::size_t i = 0; i < commands_.size(); ++i) {
                    cl_event made = nullptr;
                    const bool last = event != nullptr && i + 1 == commands_.size();
                    run(queue, commands_[i], last ? &made : nullptr);
                    if (last) *event = cl::Event(made);
                }
            });
    }

private:
    void run(const cl::CommandQueue& queue, const PreparedCommand& c, cl_event* event) const {
        const cl_command_queue q = queue();
        const auto context = [&] { return "replaying a recording on " + device_->describe(); };
        switch (c.kind) {
        case PreparedCommand::Kind::write:
            return check(clEnqueueWriteBuffer(q, c.target, CL_FALSE, c.target_offset, c.bytes,
                                              c.host, 0, nullptr, event),
                         "clEnqueueWriteBuffer", context);
        case PreparedCommand::Kind::read:
            return check(clEnqueueReadBuffer(q, c.target, CL_FALSE, c.target_offset, c.bytes,
                                             c.host, 0, nullptr, event),
                         "clEnqueueReadBuffer", context);
        case PreparedCommand::Kind::copy:
            return check(clEnqueueCopyBuffer(q, c.source, c.target, c.source_offset,
                                             c.target_offset, c.bytes, 0, nullptr, event),
                         "clEnqueueCopyBuffer", context);
        case PreparedCommand::Kind::fill:
            return check(clEnqueueFillBuffer(q, c.target, c.pattern.bytes.data(), c.pattern.size,
                                             c.target_offset, c.bytes, 0, nullptr, event),
                         "clEnqueueFillBuffer", context);
        case PreparedCommand::Kind::launch:
            return launch(queue, c, event);
        }
    }

    void launch(const cl::CommandQueue& queue, const PreparedCommand& c, cl_event* event) const {
        const auto enqueue = [&](cl_event* out) {
            check(clEnqueueNDRangeKernel(queue(), c.kernel, c.range.dims, nullptr,
                                         c.range.global.data(), c.range.local.data(), 0, nullptr,
                                         out),
                  "clEnqueueNDRangeKernel",
                  [&] { return "replaying a launch of kernel '" + *c.kernel_name + "'"; });
        };
        if (!device_->is_pocl()) return enqueue(event);
        // PoCL aborts on launches of one kernel over different grids in flight at once; the
        // guard keeps them apart as it does for plain launches (pocl_launch_guard.hpp).
        cl::Event own;
        pocl_guarded_launch(*c.kernel_name, c.range.local, c.range.global, queue, own,
                            [&](cl::Event* out) {
                                cl_event made = nullptr;
                                enqueue(&made);
                                *out = cl::Event(made);
                            });
        if (event != nullptr) {
            clRetainEvent(own());  // the caller's reference, beside `own`'s
            *event = own();
        }
    }

    std::shared_ptr<DeviceImpl> device_;
    std::vector<PreparedCommand> commands_;
    RecordedKernels::Kept kept_;  // the launches' kernel objects, their arguments set
};

class CommandListRecorder final : public backend::RecorderImpl {
public:
    explicit CommandListRecorder(std::shared_ptr<DeviceImpl> device)
        : device_(std::move(device)), kernels_(*device_) {}

    // One list runs every lane's commands in the order they were recorded: an order that keeps
    // each lane's and every wait (a wait names a command recorded before it), with nothing side
    // by side.
    std::size_t add_lane() override { return lanes_++; }
    void wait(std::size_t, Point) override {}

    Point copy_to_device(std::size_t, backend::BufferImpl& dst, std::size_t dst_offset,
                         backend::HostBufferImpl& host, std::size_t host_offset,
                         std::size_t bytes) override {
        return added(host_transfer(PreparedCommand::Kind::write, dst, dst_offset, host,
                                   host_offset, bytes));
    }
    Point copy_to_host(std::size_t, backend::HostBufferImpl& host, std::size_t host_offset,
                       backend::BufferImpl& src, std::size_t src_offset,
                       std::size_t bytes) override {
        return added(host_transfer(PreparedCommand::Kind::read, src, src_offset, host,
                                   host_offset, bytes));
    }
    Point copy_device(std::size_t, backend::BufferImpl& dst, std::size_t dst_offset,
                      backend::BufferImpl& src, std::size_t src_offset,
                      std::size_t bytes) override {
        PreparedCommand c;
        c.kind = PreparedCommand::Kind::copy;
        c.target = ours(dst).cl_buffer()();
        c.source = ours(src).cl_buffer()();
        c.target_offset = dst_offset;
        c.source_offset = src_offset;
        c.bytes = bytes;
        return added(c);
    }
    Point fill(std::size_t, backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
               const void* pattern, std::size_t pattern_size) override {
        PreparedCommand c;
        c.kind = PreparedCommand::Kind::fill;
        c.target = ours(dst).cl_buffer()();
        c.target_offset = offset;
        c.bytes = bytes;
        c.pattern = widened_pattern(pattern, pattern_size, offset, bytes);
        return added(c);
    }
    Point launch(std::size_t, backend::KernelImpl& kernel,
                 const backend::LaunchGeometry& geometry, backend::KernelArgs args) override {
        KernelState& state = state_of(kernel);
        PreparedCommand c;
        c.kind = PreparedCommand::Kind::launch;
        c.kernel = kernels_.with(state, args);
        c.kernel_name = &state.name;
        c.range = NDRange(geometry);
        return added(c);
    }

    std::shared_ptr<backend::RecordingImpl> finish(const std::shared_ptr<backend::RecordingImpl>&,
                                                   bool& updated) override {
        updated = false;
        return std::make_shared<CommandListRecording>(device_, std::move(commands_),
                                                      kernels_.take());
    }

private:
    // A write (host to `buffer`) or a read (`buffer` to host).
    static PreparedCommand host_transfer(PreparedCommand::Kind kind, backend::BufferImpl& buffer,
                                         std::size_t offset, backend::HostBufferImpl& host,
                                         std::size_t host_offset, std::size_t bytes) {
        PreparedCommand c;
        c.kind = kind;
        c.target = ours(buffer).cl_buffer()();
        c.target_offset = offset;
        c.host = static_cast<unsigned char*>(host.data()) + host_offset;
        c.bytes = bytes;
        return c;
    }
    Point added(const PreparedCommand& command) {
        commands_.push_back(command);
        return commands_.size() - 1;
    }

    std::shared_ptr<DeviceImpl> device_;
    std::size_t lanes_ = 1;
    std::vector<PreparedCommand> commands_;
    RecordedKernels kernels_;
};

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

std::unique_ptr<backend::RecorderImpl> make_recorder(std::shared_ptr<DeviceImpl> device,
                                                     std::shared_ptr<QueueImpl> queue,
                                                     const std::optional<CommandBufferApi>& api) {
    if (api) return std::make_unique<CommandBufferRecorder>(std::move(device), std::move(queue),
                                                            *api);
    return std::make_unique<CommandListRecorder>(std::move(device));
}

}  // namespace dualrt::opencl
