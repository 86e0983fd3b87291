// Recording into dualrt's own command lists, where a device has no command buffers this backend
// can use (NVIDIA's OpenCL): every command prepared when recorded (memory objects resolved, a
// fill's pattern widened, a launch's arguments set once on a kernel object of the recording's
// own), so that a replay is one driver call per command and nothing else: no event, no argument,
// no lookup.
#include "fill.hpp"
#include "pocl_launch_guard.hpp"
#include "recording_parts.hpp"

#include <utility>
#include <vector>

namespace dualrt::opencl::recording {
namespace {

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

}  // namespace

std::unique_ptr<backend::RecorderImpl> command_list_recorder(std::shared_ptr<DeviceImpl> device) {
    return std::make_unique<CommandListRecorder>(std::move(device));
}

}  // namespace dualrt::opencl::recording
