// EventImpl: a point in a queue, wrapping the cl::Event of an enqueued command.
#pragma once

#include "backend/backend.hpp"
#include "cl.hpp"

#include <memory>
#include <string>

namespace dualrt::opencl {

class DeviceImpl;

// Owns one cl_event of a command in `queue` (created with CL_QUEUE_PROFILING_ENABLE), and keeps
// its device and that queue alive. Thread-safe: OpenCL event queries and waits may run on any
// thread.
class EventImpl final : public backend::EventImpl {
public:
    // `timed`: whether the event is a timing point (QueueImpl::record). The queue profiles every
    // command, but only timed events are offered for timing, as on CUDA.
    EventImpl(std::shared_ptr<DeviceImpl> device, cl::CommandQueue queue, cl::Event event,
              bool timed);

    const backend::DeviceImpl& device() const override;
    // Blocks until the command completed. Throws Errc::backend_failure naming the status when the
    // command failed.
    void wait() override;
    // Never blocks. Flushes the command's queue while the command is still only queued, so that
    // polling makes progress. Throws Errc::backend_failure naming the status when it failed.
    bool is_complete() override;
    bool timed() const override { return timed_; }
    // Waits for both events, then (this command's end - start's command end) in milliseconds,
    // from CL_PROFILING_COMMAND_END.
    double elapsed_ms_since(backend::EventImpl& start) override;
    NativeHandle native_handle() const override;  // cl_event, owned by this object

    const cl::Event& cl_event() const { return event_; }
    // Submits the queue this event's command is in (clFlush; does not block), as OpenCL requires
    // before another queue waits on the event.
    void flush_queue() const;

private:
    std::string describe() const;
    [[noreturn]] void raise_failed_command(cl_int status) const;
    cl_ulong end_ns();

    std::shared_ptr<DeviceImpl> device_;
    cl::CommandQueue queue_;  // the queue of the event's command
    cl::Event event_;
    bool timed_;
};

}  // namespace dualrt::opencl
