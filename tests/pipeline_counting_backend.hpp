// An in-process backend over host memory that counts what a Pipeline asks of it: timed events,
// waits between queues, host waits and polls. Every command runs at once. For device-free tests
// that a chunk costs only the enqueues and events its schedule needs. Timed events read 0 ms
// apart, unless the device is given Costs: then each command takes simulated time on its
// engine (uploads, downloads and device work each have one, taking commands in order, as a
// GPU's copy engines and compute units do), and timed events read that clock.
#pragma once

#include "backend/backend.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace test::counting {

using namespace dualrt::backend;

// A timed event that takes long on the host, as when the OS preempts the recording thread.
struct RecordStall {
    std::size_t at_record = 0;  // the stalled record's number in `Counts::records` (0: none)
    std::chrono::milliseconds length{0};
};

// Simulated time per byte of each kind of command (0: none, the default).
struct Costs {
    double upload_ns_per_byte = 0.0;
    double download_ns_per_byte = 0.0;
    double device_ns_per_byte = 0.0;  // copies between device buffers (the tests' compute)
};

struct Counts {
    std::size_t records = 0;      // QueueImpl::record: timed events
    std::size_t marks = 0;        // QueueImpl::mark: untimed points for other queues
    std::size_t queue_waits = 0;  // QueueImpl::wait_for: a queue waiting for another's event
    std::size_t host_waits = 0;   // EventImpl::wait on an untimed event (timed ones are read)
    std::size_t polls = 0;        // EventImpl::is_complete
    std::size_t submits = 0;      // QueueImpl::submit
    // Enqueues made while the queue's previous enqueue's event was still held: a real backend
    // then records that event first (a marker on OpenCL, a cuEventRecord on CUDA).
    std::size_t held_across = 0;
    std::size_t uploads = 0, downloads = 0, device_copies = 0;
    // Copies (uploads and downloads) on queues made without timing (create_queue(false)).
    std::size_t untimed_queue_copies = 0;
};

class Event final : public EventImpl {
public:
    Event(const DeviceImpl& device, Counts& counts, bool timed, double at_ms)
        : device_(device), counts_(counts), timed_(timed), at_ms_(at_ms) {}
    const DeviceImpl& device() const override { return device_; }
    void wait() override {
        if (!timed_) ++counts_.host_waits;
    }
    bool is_complete() override {
        ++counts_.polls;
        return true;
    }
    bool timed() const override { return timed_; }
    double elapsed_ms_since(EventImpl& start) override {
        return at_ms_ - static_cast<Event&>(start).at_ms_;
    }
    dualrt::NativeHandle native_handle() const override { return 0; }
    double at_ms() const { return at_ms_; }

private:
    const DeviceImpl& device_;
    Counts& counts_;
    bool timed_;
    double at_ms_;  // simulated time of its point
};

class Buffer final : public BufferImpl {
public:
    Buffer(const DeviceImpl& device, std::size_t bytes) : device_(device), bytes_(bytes) {}
    const DeviceImpl& device() const override { return device_; }
    std::size_t bytes() const override { return bytes_.size(); }
    dualrt::NativeHandle native_handle() const override { return 0; }
    unsigned char* data() { return bytes_.data(); }

private:
    const DeviceImpl& device_;
    std::vector<unsigned char> bytes_;
};

class HostBuffer final : public HostBufferImpl {
public:
    HostBuffer(const DeviceImpl& device, std::size_t bytes) : device_(device), data_(bytes) {}
    const DeviceImpl& device() const override { return device_; }
    void* data() override { return data_.data(); }
    std::size_t bytes() const override { return data_.size(); }
    dualrt::NativeHandle native_handle() const override { return 0; }

private:
    const DeviceImpl& device_;
    std::vector<unsigned char> data_;
};

// The simulated clocks of a device's engines: uploads, downloads, device work.
struct Engines {
    double busy_until_ms[3] = {};
};

class Queue final : public QueueImpl {
public:
    Queue(const DeviceImpl& device, Counts& counts, const RecordStall& stall, const Costs& costs,
          Engines& engines, bool timing)
        : device_(device), counts_(counts), stall_(stall), costs_(costs), engines_(engines),
          timing_(timing) {}
    const DeviceImpl& device() const override { return device_; }
    EventPtr copy_to_device(BufferImpl& dst, std::size_t offset, const void* src,
                            std::size_t bytes, dualrt::Sync) override {
        ++counts_.uploads;
        if (!timing_) ++counts_.untimed_queue_copies;
        std::memcpy(ours(dst).data() + offset, src, bytes);
        return enqueued(false, run_on(0, costs_.upload_ns_per_byte * double(bytes)));
    }
    EventPtr copy_to_host(void* dst, BufferImpl& src, std::size_t offset, std::size_t bytes,
                          dualrt::Sync) override {
        ++counts_.downloads;
        if (!timing_) ++counts_.untimed_queue_copies;
        std::memcpy(dst, ours(src).data() + offset, bytes);
        return enqueued(false, run_on(1, costs_.download_ns_per_byte * double(bytes)));
    }
    EventPtr copy_device(BufferImpl& dst, std::size_t dst_offset, BufferImpl& src,
                         std::size_t src_offset, std::size_t bytes, dualrt::Sync) override {
        ++counts_.device_copies;
        std::memcpy(ours(dst).data() + dst_offset, ours(src).data() + src_offset, bytes);
        return enqueued(false, run_on(2, costs_.device_ns_per_byte * double(bytes)));
    }
    EventPtr fill(BufferImpl&, std::size_t, std::size_t, const void*, std::size_t,
                  dualrt::Sync) override {
        return enqueued(false, run_on(2, 0.0));
    }
    EventPtr launch(KernelImpl&, const LaunchGeometry&, KernelArgs) override {
        return enqueued(false, run_on(2, 0.0));
    }
    EventPtr record() override {
        if (++counts_.records == stall_.at_record) std::this_thread::sleep_for(stall_.length);
        return enqueued(timing_, queue_ms_);  // untimed on a queue made without timing
    }
    EventPtr mark() override {
        ++counts_.marks;
        return event(false, queue_ms_);
    }
    void wait_for(EventImpl& event) override {
        ++counts_.queue_waits;
        queue_ms_ = std::max(queue_ms_, static_cast<Event&>(event).at_ms());
    }
    void finish() override {}
    void submit() override { ++counts_.submits; }
    dualrt::NativeHandle native_handle() const override { return 0; }

private:
    static Buffer& ours(BufferImpl& buffer) { return static_cast<Buffer&>(buffer); }
    EventPtr event(bool timed, double at_ms) {
        return std::make_shared<Event>(device_, counts_, timed, at_ms);
    }
    // Runs a command of `ns` on `engine` after the queue's and the engine's earlier work; its end.
    double run_on(std::size_t engine, double ns) {
        double& engine_ms = engines_.busy_until_ms[engine];
        queue_ms_ = std::max(queue_ms_, engine_ms) + ns * 1e-6;
        engine_ms = queue_ms_;
        return queue_ms_;
    }
    // A command's event, counting whether the previous command's was still held. A timed event
    // (record) is recorded when made, as in the real backends: holding it costs nothing later.
    EventPtr enqueued(bool timed, double at_ms) {
        if (!last_.expired()) ++counts_.held_across;
        EventPtr made = event(timed, at_ms);
        last_.reset();
        if (!timed) last_ = made;
        return made;
    }
    const DeviceImpl& device_;
    Counts& counts_;
    const RecordStall& stall_;
    const Costs& costs_;
    Engines& engines_;
    bool timing_;                    // made with timing (QueueOptions::timing)
    std::weak_ptr<EventImpl> last_;  // the last command's event
    double queue_ms_ = 0.0;          // simulated end of the queue's last command
};

// Outlives everything made from it (the test holds it for the whole case). Reports itself as a
// device of `backend`, for the choices a Pipeline makes per backend.
class Device final : public DeviceImpl {
public:
    explicit Device(dualrt::Backend backend = dualrt::Backend::opencl) {
        info_.name = "counting";
        info_.backend = backend;
    }
    const dualrt::DeviceInfo& info() const override { return info_; }
    std::shared_ptr<BufferImpl> create_buffer(std::size_t bytes) override {
        return std::make_shared<Buffer>(*this, bytes);
    }
    std::shared_ptr<HostBufferImpl> create_host_buffer(std::size_t bytes) override {
        return std::make_shared<HostBuffer>(*this, bytes);
    }
    std::shared_ptr<MappedBufferImpl> create_mapped_buffer(std::size_t) override {
        return nullptr;
    }
    std::shared_ptr<QueueImpl> create_queue(bool timing) override {
        return std::make_shared<Queue>(*this, counts, stall, costs, engines, timing);
    }
    std::shared_ptr<KernelImpl> kernel(const std::string&) override { return nullptr; }
    std::vector<std::string> load_source(const std::string&, const std::string&) override {
        return {};
    }
    dualrt::NativeHandle native_handle() const override { return 0; }
    dualrt::NativeHandle native_context() const override { return 0; }

    Counts counts;
    RecordStall stall;
    Costs costs;
    Engines engines;

private:
    dualrt::DeviceInfo info_;
};

}  // namespace test::counting
