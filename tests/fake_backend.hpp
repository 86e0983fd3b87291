// An in-process backend over plain host memory, for device-free tests of the core: ownership,
// argument checks and dispatch, with no driver involved. Every operation runs at once, so every
// event is complete when it is returned.
#pragma once

#include "backend/backend.hpp"

#include <dualrt/error.hpp>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace test::fake {

using namespace dualrt::backend;

class Device;

// An object of the fake "driver" that the interop hooks wrap: its address is the native handle.
// `references` counts the application's reference (1) as OpenCL's reference count does: an
// adopted wrapper drops it when it goes, a borrowed one never touches it.
struct NativeObject {
    const DeviceImpl* owner = nullptr;  // the device whose "context" made it
    int references = 1;
    std::vector<unsigned char> bytes;  // memory objects only
    dualrt::NativeHandle handle() { return reinterpret_cast<dualrt::NativeHandle>(this); }
};

// What a wrapped fake object holds of its native object: nothing for dualrt's own objects.
class NativeHold {
public:
    NativeHold() = default;
    NativeHold(NativeObject* object, dualrt::Ownership ownership)
        : object_(object), adopted_(ownership == dualrt::Ownership::adopt) {}
    ~NativeHold() {
        if (object_ != nullptr && adopted_) --object_->references;
    }
    NativeHold(const NativeHold&) = delete;
    NativeHold& operator=(const NativeHold&) = delete;
    NativeObject* object() const { return object_; }

private:
    NativeObject* object_ = nullptr;
    bool adopted_ = false;
};

class Event final : public EventImpl {
public:
    explicit Event(std::shared_ptr<const Device> device) : device_(std::move(device)) {}
    Event(std::shared_ptr<const Device> device, NativeObject* native, dualrt::Ownership ownership)
        : device_(std::move(device)), native_(native, ownership) {}
    const DeviceImpl& device() const override;
    void wait() override {}
    bool is_complete() override { return true; }
    bool timed() const override { return true; }
    double elapsed_ms_since(EventImpl&) override { return 0.0; }
    dualrt::NativeHandle native_handle() const override {
        return native_.object() ? native_.object()->handle() : 0;
    }

private:
    std::shared_ptr<const Device> device_;
    NativeHold native_;
};

class Buffer final : public BufferImpl {
public:
    Buffer(std::shared_ptr<const Device> device, std::size_t bytes)
        : device_(std::move(device)), bytes_(bytes), size_(bytes) {}
    // The first `bytes` of a native memory object.
    Buffer(std::shared_ptr<const Device> device, NativeObject* native, std::size_t bytes,
           dualrt::Ownership ownership)
        : device_(std::move(device)), size_(bytes), native_(native, ownership) {}
    const DeviceImpl& device() const override;
    std::size_t bytes() const override { return size_; }
    dualrt::NativeHandle native_handle() const override {
        return native_.object() ? native_.object()->handle()
                                : reinterpret_cast<dualrt::NativeHandle>(bytes_.data());
    }
    unsigned char* data() {
        return native_.object() ? native_.object()->bytes.data() : bytes_.data();
    }

private:
    std::shared_ptr<const Device> device_;
    std::vector<unsigned char> bytes_;
    std::size_t size_;
    NativeHold native_;
};

// Mapped memory over a fake Buffer: host and device share it, as on a CPU device. Keeps the turn
// rule's claim (begin returns nullptr while held) so the core's checks can be tested.
class MappedBuffer final : public MappedBufferImpl {
public:
    explicit MappedBuffer(std::shared_ptr<Buffer> buffer) : buffer_(std::move(buffer)) {}
    const DeviceImpl& device() const override { return buffer_->device(); }
    std::size_t bytes() const override { return buffer_->bytes(); }
    std::shared_ptr<BufferImpl> device_buffer() const override { return buffer_; }
    bool host_held() const override { return held_; }
    void* begin_host_access(QueueImpl&) override {
        if (held_) return nullptr;
        held_ = true;
        return buffer_->data();
    }
    void end_host_access(QueueImpl&) override { held_ = false; }
    dualrt::NativeHandle native_handle() const override { return buffer_->native_handle(); }

private:
    std::shared_ptr<Buffer> buffer_;
    bool held_ = false;
};

// Pinned host memory, which on the fake backend is ordinary host memory.
class HostBuffer final : public HostBufferImpl {
public:
    HostBuffer(std::shared_ptr<const Device> device, std::size_t bytes)
        : device_(std::move(device)), data_(bytes) {}
    const DeviceImpl& device() const override;
    void* data() override { return data_.data(); }
    std::size_t bytes() const override { return data_.size(); }
    dualrt::NativeHandle native_handle() const override {
        return reinterpret_cast<dualrt::NativeHandle>(data_.data());
    }

private:
    std::shared_ptr<const Device> device_;
    std::vector<unsigned char> data_;
};

class Queue final : public QueueImpl {
public:
    explicit Queue(std::shared_ptr<const Device> device) : device_(std::move(device)) {}
    Queue(std::shared_ptr<const Device> device, NativeObject* native, dualrt::Ownership ownership)
        : device_(std::move(device)), native_(native, ownership) {}
    const DeviceImpl& device() const override;
    EventPtr copy_to_device(BufferImpl& dst, std::size_t offset, const void* src,
                            std::size_t bytes, dualrt::Sync) override {
        std::memcpy(ours(dst).data() + offset, src, bytes);
        return done();
    }
    EventPtr copy_to_host(void* dst, BufferImpl& src, std::size_t offset, std::size_t bytes,
                          dualrt::Sync) override {
        std::memcpy(dst, ours(src).data() + offset, bytes);
        return done();
    }
    EventPtr copy_device(BufferImpl& dst, std::size_t dst_offset, BufferImpl& src,
                         std::size_t src_offset, std::size_t bytes, dualrt::Sync) override {
        std::memcpy(ours(dst).data() + dst_offset, ours(src).data() + src_offset, bytes);
        return done();
    }
    EventPtr fill(BufferImpl& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                  std::size_t pattern_size, dualrt::Sync) override {
        for (std::size_t at = 0; at < bytes; at += pattern_size)
            std::memcpy(ours(dst).data() + offset + at, pattern, pattern_size);
        return done();
    }
    EventPtr launch(KernelImpl&, const LaunchGeometry& geometry, KernelArgs args) override {
        last_geometry = geometry;
        // The arguments borrow the launch call's values: keep kinds and sizes, not pointers.
        last_args.assign(args.begin(), args.end());
        for (auto& arg : last_args) {
            arg.buffer = nullptr;
            arg.value = nullptr;
        }
        return done();
    }
    EventPtr record() override { return done(); }
    void wait_for(EventImpl&) override {}
    void finish() override {}
    dualrt::NativeHandle native_handle() const override {
        return native_.object() ? native_.object()->handle() : 0;
    }

    LaunchGeometry last_geometry;
    std::vector<KernelArg> last_args;

private:
    static Buffer& ours(BufferImpl& buffer) { return static_cast<Buffer&>(buffer); }
    EventPtr done() { return std::make_shared<Event>(device_); }
    std::shared_ptr<const Device> device_;
    NativeHold native_;
};

// A kernel `saxpy(uint n, float a, float* x, float* y)`, like the built-in one.
class Kernel final : public KernelImpl {
public:
    explicit Kernel(std::shared_ptr<const Device> device) : device_(std::move(device)) {
        params_ = {{ParamInfo::Kind::scalar, 4, "uint", "n"},
                   {ParamInfo::Kind::scalar, 4, "float", "a"},
                   {ParamInfo::Kind::buffer, 0, "float*", "x"},
                   {ParamInfo::Kind::buffer, 0, "float*", "y"}};
    }
    const DeviceImpl& device() const override;
    const std::string& name() const override { return name_; }
    const std::vector<ParamInfo>& params() const override { return params_; }
    std::size_t max_work_group_size() const override { return 128; }
    // What an OpenCL backend can say: limits known, occupancy unknown. Counts the calls, so
    // tests can tell that the core's checks refused a bad value before the backend saw it.
    dualrt::KernelOccupancy occupancy(std::size_t, std::size_t) const override {
        ++backend_calls;
        dualrt::KernelOccupancy out;
        out.max_group_size = max_work_group_size();
        out.preferred_multiple = 32;
        return out;
    }
    std::size_t suggest_group_size(std::size_t) const override {
        ++backend_calls;
        return 64;
    }
    dualrt::NativeHandle native_handle() const override { return 0; }

    mutable int backend_calls = 0;  // occupancy() and suggest_group_size() calls that got here

private:
    std::shared_ptr<const Device> device_;
    std::string name_ = "saxpy";
    std::vector<ParamInfo> params_;
};

class Device final : public DeviceImpl {
public:
    std::shared_ptr<Device> self() { return std::static_pointer_cast<Device>(shared_from_this()); }
    explicit Device(std::string name) {
        info_.name = std::move(name);
        info_.max_work_group_size = 1024;
        info_.max_work_item_sizes = {1024, 1024, 64};
        info_.local_memory_bytes = 48 * 1024;
        info_.shares_host_memory = true;  // it is all host memory
        info_.can_map_host_memory = true;
    }
    const dualrt::DeviceInfo& info() const override { return info_; }
    std::shared_ptr<BufferImpl> create_buffer(std::size_t bytes) override {
        return std::make_shared<Buffer>(self(), bytes);
    }
    // What pinning host memory does: by default the backend returns no buffer (as a backend
    // without pinned memory would); tests of the staging fallbacks set a largest pinnable size,
    // above which pinning fails with out_of_memory as cuMemHostAlloc does when the system
    // refuses.
    std::shared_ptr<HostBufferImpl> create_host_buffer(std::size_t bytes) override {
        if (!pinnable_bytes) return nullptr;
        if (bytes > *pinnable_bytes) {
            dualrt::ErrorInfo error;
            error.errc = dualrt::Errc::out_of_memory;
            error.backend = "fake";
            error.call = "create_host_buffer";
            error.detail = "pinning " + std::to_string(bytes) + " B was refused";
            throw dualrt::Error(std::move(error));
        }
        ++pinned_buffers;
        return std::make_shared<HostBuffer>(self(), bytes);
    }
    std::shared_ptr<MappedBufferImpl> create_mapped_buffer(std::size_t bytes) override {
        return std::make_shared<MappedBuffer>(std::make_shared<Buffer>(self(), bytes));
    }
    std::shared_ptr<QueueImpl> create_queue(bool) override {
        return std::make_shared<Queue>(self());
    }
    std::shared_ptr<KernelImpl> kernel(const std::string&) override {
        return std::make_shared<Kernel>(self());
    }
    std::vector<std::string> load_source(const std::string&, const std::string&) override {
        return {"fake"};
    }
    dualrt::NativeHandle native_handle() const override { return 0; }
    dualrt::NativeHandle native_context() const override { return 0; }

    // Interop: wraps NativeObjects made for this device, as a driver would check its handles.
    // With `interop` false the hooks are the interface's defaults (Errc::unavailable).
    std::shared_ptr<QueueImpl> wrap_queue(dualrt::NativeHandle queue,
                                          dualrt::Ownership ownership) override {
        if (!interop) return DeviceImpl::wrap_queue(queue, ownership);
        return std::make_shared<Queue>(self(), native(queue), ownership);
    }
    std::shared_ptr<BufferImpl> wrap_buffer(dualrt::NativeHandle memory, std::size_t bytes,
                                            dualrt::Ownership ownership) override {
        if (!interop) return DeviceImpl::wrap_buffer(memory, bytes, ownership);
        NativeObject* object = native(memory);
        if (bytes > object->bytes.size())
            refuse("the memory object is smaller", dualrt::Errc::out_of_range);
        return std::make_shared<Buffer>(self(), object, bytes, ownership);
    }
    EventPtr wrap_event(dualrt::NativeHandle event, dualrt::Ownership ownership) override {
        if (!interop) return DeviceImpl::wrap_event(event, ownership);
        return std::make_shared<Event>(self(), native(event), ownership);
    }

    std::optional<std::size_t> pinnable_bytes;
    std::size_t pinned_buffers = 0;  // buffers create_host_buffer handed out
    bool interop = true;             // whether the wrap hooks are implemented
    int wrap_calls = 0;              // calls that reached a wrap hook

private:
    // The object behind `handle`, refused (as a driver refuses a handle of another context) when
    // it was made for another device.
    NativeObject* native(dualrt::NativeHandle handle) {
        ++wrap_calls;
        auto* object = reinterpret_cast<NativeObject*>(handle);
        if (object->owner != this) refuse("the object belongs to another fake device");
        return object;
    }
    [[noreturn]] static void refuse(const std::string& detail,
                                    dualrt::Errc errc = dualrt::Errc::invalid_argument) {
        dualrt::ErrorInfo error;
        error.errc = errc;
        error.backend = "fake";
        error.call = "wrap";
        error.detail = detail;
        throw dualrt::Error(std::move(error));
    }

    dualrt::DeviceInfo info_;
};

inline const DeviceImpl& Event::device() const { return *device_; }
inline const DeviceImpl& Buffer::device() const { return *device_; }
inline const DeviceImpl& HostBuffer::device() const { return *device_; }
inline const DeviceImpl& Queue::device() const { return *device_; }
inline const DeviceImpl& Kernel::device() const { return *device_; }

}  // namespace test::fake
