#include "runtime/queue_recording.hpp"

#include <dualrt/queue.hpp>

#include "backend/backend_access.hpp"
#include "backend/launch_journal.hpp"
#include "staging/pinned_ranges.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

namespace dualrt::detail {

void QueueRecordingDeleter::operator()(QueueRecording* recording) const noexcept {
    delete recording;
}

namespace {

class RecordedEvent final : public backend::EventImpl {
public:
    explicit RecordedEvent(std::shared_ptr<const backend::DeviceImpl> device)
        : device_(std::move(device)) {}
    const backend::DeviceImpl& device() const override { return *device_; }
    void wait() override { refuse("Event::wait"); }
    bool is_complete() override { refuse("Event::is_complete"); }
    bool timed() const override { return false; }
    double elapsed_ms_since(backend::EventImpl&) override { refuse("Event::elapsed_ms"); }
    NativeHandle native_handle() const override { return 0; }

private:
    [[noreturn]] static void refuse(const char* operation) {
        raise_argument(operation, "the Event is of a command recorded between "
                                  "Queue::begin_recording and end_recording, which runs only when "
                                  "replayed; wait for the Event Queue::replay returns instead");
    }
    std::shared_ptr<const backend::DeviceImpl> device_;
};

}  // namespace

void QueueRecording::mix(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) fingerprint_ = (fingerprint_ ^ p[i]) * 1099511628211ull;
}

void QueueRecording::copy_to_device(const BufferView& dst, const PinnedHolder& host,
                                    std::size_t bytes) {
    const auto& buffer = backend_of(dst);
    mix_values('u', buffer.get(), dst.offset_bytes(), host.buffer.get(), host.offset, bytes);
    if (recorder_)
        recorder_->copy_to_device(*buffer, dst.offset_bytes(), *host.buffer, host.offset, bytes);
    ++commands_;
    kept_.insert(kept_.end(), {buffer, host.buffer});
}

void QueueRecording::copy_to_host(const PinnedHolder& host, const BufferView& src,
                                  std::size_t bytes) {
    const auto& buffer = backend_of(src);
    mix_values('d', buffer.get(), src.offset_bytes(), host.buffer.get(), host.offset, bytes);
    if (recorder_)
        recorder_->copy_to_host(*host.buffer, host.offset, *buffer, src.offset_bytes(), bytes);
    ++commands_;
    kept_.insert(kept_.end(), {buffer, host.buffer});
}

void QueueRecording::copy_device(const BufferView& dst, const BufferView& src) {
    const auto& to = backend_of(dst);
    const auto& from = backend_of(src);
    mix_values('c', to.get(), dst.offset_bytes(), from.get(), src.offset_bytes(), src.bytes());
    if (recorder_)
        recorder_->copy_device(*to, dst.offset_bytes(), *from, src.offset_bytes(), src.bytes());
    ++commands_;
    kept_.insert(kept_.end(), {to, from});
}

void QueueRecording::fill(const BufferView& dst, const void* pattern, std::size_t pattern_size) {
    const auto& buffer = backend_of(dst);
    mix_values('f', buffer.get(), dst.offset_bytes(), dst.bytes());
    mix(pattern, pattern_size);
    if (recorder_)
        recorder_->fill(*buffer, dst.offset_bytes(), dst.bytes(), pattern, pattern_size);
    ++commands_;
    kept_.push_back(buffer);
}

void QueueRecording::launch(const Kernel& kernel, const backend::LaunchGeometry& geometry,
                            backend::KernelArgs args, const KernelArgument* arguments,
                            std::size_t count) {
    const auto& impl = backend_of(kernel);
    mix_values('l', impl.get(), geometry.dims, geometry.global, geometry.local);
    for (const backend::KernelArg& arg : args) {
        mix_values(arg.kind, arg.buffer, arg.offset, arg.bytes);
        if (arg.value != nullptr) mix(arg.value, arg.bytes);
    }
    if (recorder_) recorder_->launch(*impl, geometry, args);
    ++commands_;
    kept_.push_back(impl);
    for (std::size_t i = 0; i < count; ++i)
        if (arguments[i].kind == KernelArgument::Kind::buffer)
            kept_.push_back(backend_of(*arguments[i].buffer));
}

void begin_fingerprint(const Queue& queue) {
    backend::QueueImpl& impl = *backend_of(queue);
    if (impl.recording() != nullptr)
        raise_argument("Pipeline::run", "the queue is recording already");
    impl.recording_slot().reset(new QueueRecording(nullptr));
}

std::uint64_t end_fingerprint(const Queue& queue) {
    QueueRecordingPtr recording = std::move(backend_of(queue)->recording_slot());
    return recording ? recording->fingerprint() : 0;
}

std::uint64_t recorded_fingerprint(const Recording& recording) noexcept {
    return recording.state_ ? recording.state_->fingerprint : 0;
}

std::shared_ptr<backend::EventImpl> recorded_event(
    std::shared_ptr<const backend::DeviceImpl> device) {
    return std::make_shared<RecordedEvent>(device);
}

bool is_recorded_event(const backend::EventImpl& event) {
    return dynamic_cast<const RecordedEvent*>(&event) != nullptr;
}

PinnedHolder pinned_for_recording(const char* operation, const char* role,
                                  const backend::DeviceImpl& device, const void* data,
                                  std::size_t bytes) {
    auto holder = pinned_holder(device, data, bytes);
    if (!holder)
        raise_argument(operation,
                       std::string("the ") + role + " is pageable host memory (or pinned for "
                       "another device), which only the host can copy, and a replay runs "
                       "without it; record copies from and to a HostBuffer of " +
                           device_label(device.info()) +
                           ", memory registered with it (Device::register_host), or a pointer "
                           "into either");
    return std::move(*holder);
}

std::shared_ptr<backend::EventImpl> copy_to_device_or_record(const Queue& queue,
                                                             const BufferView& dst,
                                                             const void* src, std::size_t bytes) {
    backend::QueueImpl& impl = *backend_of(queue);
    QueueRecording* recording = impl.recording();
    if (recording == nullptr)
        return impl.copy_to_device(*backend_of(dst), dst.offset_bytes(), src, bytes, Sync::async);
    recording->copy_to_device(
        dst, pinned_for_recording("Pipeline::run (recording)", "input", impl.device(), src, bytes),
        bytes);
    return nullptr;
}

std::shared_ptr<backend::EventImpl> copy_to_host_or_record(const Queue& queue, void* dst,
                                                           const BufferView& src,
                                                           std::size_t bytes) {
    backend::QueueImpl& impl = *backend_of(queue);
    QueueRecording* recording = impl.recording();
    if (recording == nullptr)
        return impl.copy_to_host(dst, *backend_of(src), src.offset_bytes(), bytes, Sync::async);
    recording->copy_to_host(
        pinned_for_recording("Pipeline::run (recording)", "output", impl.device(), dst, bytes),
        src, bytes);
    return nullptr;
}

}  // namespace dualrt::detail

namespace dualrt {

detail::QueueRecording* Queue::recording_for(const char* operation, Sync sync) const {
    detail::QueueRecording* recording = impl_->recording();
    if (recording != nullptr && sync == Sync::blocking)
        detail::raise_argument(operation, "Sync::blocking cannot be recorded: the command runs "
                                          "only when replayed; record it with Sync::async and "
                                          "wait for the Event Queue::replay returns");
    return recording;
}

Event Queue::recorded() const { return Event(detail::recorded_event(device_)); }

void Queue::refuse_while_recording(const char* operation) const {
    if (impl_->recording() != nullptr)
        detail::raise_argument(operation,
                               "the queue is recording (Queue::begin_recording), and this call "
                               "needs the host or another queue while the work runs, which a "
                               "replay has not; call it before begin_recording or after "
                               "end_recording");
}

void Queue::begin_recording() {
    require_valid("Queue::begin_recording");
    if (impl_->recording() != nullptr)
        detail::raise_argument("Queue::begin_recording",
                               "the queue is recording already; end_recording() first");
    auto recorder = device_->create_recorder(*impl_);
    impl_->recording_slot().reset(new detail::QueueRecording(std::move(recorder)));
}

bool Queue::recording() const {
    require_valid("Queue::recording");
    return impl_->recording() != nullptr;
}

std::shared_ptr<detail::RecordingState> Queue::finish_recording(
    const std::shared_ptr<detail::RecordingState>& previous) {
    const char* op = "Queue::end_recording";
    require_valid(op);
    if (impl_->recording() == nullptr)
        detail::raise_argument(op, "the queue is not recording; call begin_recording() first");
    // The recording ends here whatever happens next: a failure leaves the queue usable.
    detail::QueueRecordingPtr recording = std::move(impl_->recording_slot());
    if (recording->commands() == 0)
        detail::raise_argument(op, "nothing was recorded between begin_recording() and "
                                   "end_recording(); expected at least one copy, fill or launch");
    if (previous && previous->device != device_)
        detail::raise_argument(op, "the Recording to update was made on device " +
                                       detail::device_label(previous->device->info()) +
                                       ", but this queue runs on " +
                                       detail::device_label(device_->info()));
    auto state = std::make_shared<detail::RecordingState>();
    state->device = device_;
    state->path = device_->info().recording;
    state->commands = recording->commands();
    state->fingerprint = recording->fingerprint();
    state->kept = recording->take_kept();
    state->impl = recording->recorder()->finish(previous ? previous->impl : nullptr,
                                                state->updated_in_place);
    return state;
}

Recording Queue::end_recording() { return Recording(finish_recording(nullptr)); }

void Queue::end_recording(Recording& into) {
    if (!into.valid())
        detail::raise_argument("Queue::end_recording", "the Recording to update is empty; use "
                                                       "end_recording() for a new one");
    // Objects only the old commands used are released here as any Buffer can be with work in
    // flight: the drivers keep memory that enqueued work uses until it has run.
    into.state_ = finish_recording(into.state_);
}

Event Queue::replay(const Recording& recording) {
    const char* op = "Queue::replay";
    require_valid(op);
    refuse_while_recording(op);
    if (!recording.valid()) detail::raise_argument(op, "the Recording is empty");
    const detail::RecordingState& state = *recording.state_;
    if (state.device != device_)
        detail::raise_argument(op, "the Recording was made on device " +
                                       detail::device_label(state.device->info()) +
                                       ", but this queue runs on " +
                                       detail::device_label(device_->info()));
    return after_enqueue(
        detail::reporting_faults(*device_, [&] { return state.impl->replay(*impl_); }),
        Sync::async);
}

RecordingPath Recording::path() const { return state_ ? state_->path : RecordingPath::none; }
std::size_t Recording::commands() const { return state_ ? state_->commands : 0; }
bool Recording::updated_in_place() const { return state_ && state_->updated_in_place; }

}  // namespace dualrt
