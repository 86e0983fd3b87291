// An in-process backend over host memory that counts what a Pipeline asks of it: timed events,
// waits between queues, host waits and polls. Every command runs at once. For device-free tests
// that a chunk costs only the enqueues and events its schedule needs.
#pragma once

#include "backend/backend.hpp"

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
};

class Event final : public EventImpl {
public:
    Event(const DeviceImpl& device, Counts& counts, bool timed)
        : device_(device), counts_(counts), timed_(timed) {}
    const DeviceImpl& device() const override { return device_; }
    void wait() override {
        if (!timed_) ++counts_.host_waits;
    }
    bool is_complete() override {
        ++counts_.polls;
        return true;
    }
    bool timed() const override { return timed_; }
    double elapsed_ms_since(EventImpl&) override { return 0.0; }
    dualrt::NativeHandle native_handle() const override { return 0; }

private:
    const DeviceImpl& device_;
    Counts& counts_;
    bool timed_;
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

class Queue final : public QueueImpl {
public:
    Queue(const DeviceImpl& device, Counts& counts, const RecordStall& stall)
        : device_(device), counts_(counts), stall_(stall) {}
    const DeviceImpl& device() const override { return device_; }
    EventPtr copy_to_device(BufferImpl& dst, std::size_t offset, const void* src,
                            std::size_t bytes, dualrt::Sync) override {
        ++counts_.uploads;
        std::memcpy(ours(dst).data() + offset, src, bytes);
        return enqueued(false);
    }
    EventPtr copy_to_host(void* dst, BufferImpl& src, std::size_t offset, std::size_t bytes,
                          dualrt::Sync) override {
        ++counts_.downloads;
        std::memcpy(dst, ours(src).data() + offset, bytes);
        return enqueued(false);
    }
    EventPtr copy_device(BufferImpl& dst, std::size_t dst_offset, BufferImpl& src,
                         std::size_t src_offset, std::size_t bytes, dualrt::Sync) override {
        ++counts_.device_copies;
        std::memcpy(ours(dst).data() + dst_offset, ours(src).data() + src_offset, bytes);
        return enqueued(false);
    }
    EventPtr fill(BufferImpl&, std::size_t, std::size_t, const void*, std::size_t,
                  dualrt::Sync) override {
        return enqueued(false);
    }
    EventPtr launch(KernelImpl&, const LaunchGeometry&, KernelArgs) override {
        return enqueued(false);
    }
    EventPtr record() override {
        if (++counts_.records == stall_.at_record) std::this_thread::sleep_for(stall_.length);
        return enqueued(true);
    }
    EventPtr mark() override {
        ++counts_.marks;
        return event(false);
    }
    void wait_for(EventImpl&) override { ++counts_.queue_waits; }
    void finish() override {}
    void submit() override { ++counts_.submits; }
    dualrt::NativeHandle native_handle() const override { return 0; }

private:
    static Buffer& ours(BufferImpl& buffer) { return static_cast<Buffer&>(buffer); }
    EventPtr event(bool timed) { return std::make_shared<Event>(device_, counts_, timed); }
    // A command's event, counting whether the previous command's was still held. A timed event
    // (record) is recorded when made, as in the real backends: holding it costs nothing later.
    EventPtr enqueued(bool timed) {
        if (!last_.expired()) ++counts_.held_across;
        EventPtr made = event(timed);
        last_.reset();
        if (!timed) last_ = made;
        return made;
    }
    const DeviceImpl& device_;
    Counts& counts_;
    const RecordStall& stall_;
    std::weak_ptr<EventImpl> last_;  // the last command's event
};

// Outlives everything made from it (the test holds it for the whole case).
class Device final : public DeviceImpl {
public:
    Device() { info_.name = "counting"; }
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
    std::shared_ptr<QueueImpl> create_queue(bool) override {
        return std::make_shared<Queue>(*this, counts, stall);
    }
    std::shared_ptr<KernelImpl> kernel(const std::string&) override { return nullptr; }
    std::vector<std::string> load_source(const std::string&, const std::string&) override {
        return {};
    }
    dualrt::NativeHandle native_handle() const override { return 0; }
    dualrt::NativeHandle native_context() const override { return 0; }

    Counts counts;
    RecordStall stall;

private:
    dualrt::DeviceInfo info_;
};

}  // namespace test::counting
