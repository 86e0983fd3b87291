#include "runtime/queue_recording.hpp"

#include <dualrt/queue.hpp>

#include "backend/backend_access.hpp"
#include "backend/launch_journal.hpp"
#include "support/raise.hpp"

#include <algorithm>

namespace dualrt::detail {

void QueueRecordingDeleter::operator()(QueueRecording* recording) const noexcept {
    delete recording;
}

namespace {

// The Event of a recorded command: a point of its recording, which other queues of the same
// recording may wait for; anything else (the host, a queue outside the recording, timing) is
// refused, as the command runs only when replayed.
class RecordedEvent final : public backend::EventImpl {
public:
    RecordedEvent(std::shared_ptr<const backend::DeviceImpl> device,
                  std::weak_ptr<OpenRecording> under_way, std::size_t lane,
                  backend::RecorderImpl::Point point)
        : device_(std::move(device)), open_(std::move(under_way)), lane_(lane), point_(point) {}
    const backend::DeviceImpl& device() const override { return *device_; }
    void wait() override { refuse("Event::wait"); }
    bool is_complete() override { refuse("Event::is_complete"); }
    bool timed() const override { return false; }
    double elapsed_ms_since(backend::EventImpl&) override { refuse("Event::elapsed_ms"); }
    NativeHandle native_handle() const override { return 0; }

    bool of(const OpenRecording& under_way) const { return open_.lock().get() == &under_way; }
    std::size_t lane() const { return lane_; }  // of the command
    backend::RecorderImpl::Point point() const { return point_; }

private:
    [[noreturn]] static void refuse(const char* operation) {
        raise_argument(operation, "the Event is of a command recorded between "
                                  "Queue::begin_recording and end_recording, which runs only when "
                                  "replayed; wait for the Event Queue::replay returns instead");
    }
    std::shared_ptr<const backend::DeviceImpl> device_;
    std::weak_ptr<OpenRecording> open_;
    std::size_t lane_;
    backend::RecorderImpl::Point point_;
};

}  // namespace

void OpenRecording::note_write(const backend::BufferImpl* buffer) {
    if (writes_elsewhere || confined_to.empty()) return;
    writes_elsewhere =
        std::find(confined_to.begin(), confined_to.end(), buffer) == confined_to.end();
}

Event QueueRecording::event_at(backend::RecorderImpl::Point point) const {
    const backend::DeviceImpl& device = open_->queues[lane_]->device();
    return Event(std::make_shared<RecordedEvent>(device.shared_from_this(), open_, lane_, point));
}

Event QueueRecording::added(backend::RecorderImpl::Point point,
                            std::initializer_list<std::shared_ptr<const void>> kept) {
    ++open_->commands;
    if (!open_->digest_only) open_->kept.insert(open_->kept.end(), kept.begin(), kept.end());
    latest_ = point;
    return event_at(point);
}

Event QueueRecording::copy_to_device(const BufferView& dst, const PinnedHolder& host,
                                     std::size_t bytes, bool digested) {
    const auto& buffer = backend_of(dst);
    if (digested) {
        open_->digest.mix_values('u', lane_, buffer.get(), dst.offset_bytes(), host.buffer.get(),
                                 host.offset, bytes);
        open_->note_write(buffer.get());
    }
    return added(open_->recorder->copy_to_device(lane_, *buffer, dst.offset_bytes(),
                                                    *host.buffer, host.offset, bytes),
                 {buffer, host.buffer});
}

Event QueueRecording::copy_to_host(const PinnedHolder& host, const BufferView& src,
                                   std::size_t bytes, bool digested) {
    const auto& buffer = backend_of(src);
    if (digested) {
        open_->digest.mix_values('d', lane_, buffer.get(), src.offset_bytes(), host.buffer.get(),
                                 host.offset, bytes);
        open_->note_write(nullptr);  // host memory
    }
    return added(open_->recorder->copy_to_host(lane_, *host.buffer, host.offset, *buffer,
                                                  src.offset_bytes(), bytes),
                 {buffer, host.buffer});
}

Event QueueRecording::copy_device(const BufferView& dst, const BufferView& src) {
    const auto& to = backend_of(dst);
    const auto& from = backend_of(src);
    open_->digest.mix_values('c', lane_, to.get(), dst.offset_bytes(), from.get(),
                             src.offset_bytes(), src.bytes());
    open_->note_write(to.get());
    return added(open_->recorder->copy_device(lane_, *to, dst.offset_bytes(), *from,
                                                 src.offset_bytes(), src.bytes()),
                 {to, from});
}

Event QueueRecording::fill(const BufferView& dst, const void* pattern, std::size_t pattern_size) {
    const auto& buffer = backend_of(dst);
    open_->digest.mix_values('f', lane_, buffer.get(), dst.offset_bytes(), dst.bytes(),
                             pattern_size);
    open_->digest.mix(pattern, pattern_size);
    open_->note_write(buffer.get());
    return added(open_->recorder->fill(lane_, *buffer, dst.offset_bytes(), dst.bytes(),
                                          pattern, pattern_size),
                 {buffer});
}

Event QueueRecording::launch(const Kernel& kernel, const backend::LaunchGeometry& geometry,
                             backend::KernelArgs args, const KernelArgument* arguments,
                             std::size_t count) {
    const auto& impl = backend_of(kernel);
    // Field by field: LaunchGeometry and KernelArg have padding, whose bytes are not theirs.
    CommandDigest& digest = open_->digest;
    digest.mix_values('l', lane_, impl.get(), geometry.dims, geometry.global, geometry.local);
    for (const backend::KernelArg& arg : args) {
        digest.mix_values(arg.kind, arg.buffer, arg.offset, arg.bytes);
        if (arg.kind == backend::ParamInfo::Kind::scalar && arg.value != nullptr)
            digest.mix(arg.value, arg.bytes);
        if (arg.kind == backend::ParamInfo::Kind::buffer) open_->note_write(arg.buffer);
    }
    Event event = added(open_->recorder->launch(lane_, *impl, geometry, args), {impl});
    if (!open_->digest_only)
        for (std::size_t i = 0; i < count; ++i)
            if (arguments[i].kind == KernelArgument::Kind::buffer)
                open_->kept.push_back(backend_of(*arguments[i].buffer));
    return event;
}

void QueueRecording::wait(const backend::EventImpl& event, bool digested) {
    const auto* recorded = dynamic_cast<const RecordedEvent*>(&event);
    if (recorded == nullptr)
        raise_argument("Queue::wait",
                       "the queue is recording, and the Event is of work outside the recording, "
                       "which a replay cannot wait for; wait for it before begin_recording, or "
                       "on the queue you replay on before the replay");
    if (!recorded->of(*open_))
        raise_argument("Queue::wait", "the Event is of a command of another recording; a "
                                      "recording's queues wait only for its own commands");
    if (recorded->point() == no_point) return;
    // By the waited command's lane, not its point: points count the library's own commands too,
    // which a digest alone does not record.
    if (digested) open_->digest.mix_values('w', lane_, recorded->lane());
    open_->recorder->wait(lane_, recorded->point());
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

bool is_recorded_event(const backend::EventImpl& event) {
    return dynamic_cast<const RecordedEvent*>(&event) != nullptr;
}

namespace {

// A digest's recorder: each command is a point and nothing more.
class DigestRecorder final : public backend::RecorderImpl {
public:
    std::size_t add_lane() override { return lanes_++; }
    void wait(std::size_t, Point) override {}
    Point copy_to_device(std::size_t, backend::BufferImpl&, std::size_t, backend::HostBufferImpl&,
                         std::size_t, std::size_t) override {
        return points_++;
    }
    Point copy_to_host(std::size_t, backend::HostBufferImpl&, std::size_t, backend::BufferImpl&,
                       std::size_t, std::size_t) override {
        return points_++;
    }
    Point copy_device(std::size_t, backend::BufferImpl&, std::size_t, backend::BufferImpl&,
                      std::size_t, std::size_t) override {
        return points_++;
    }
    Point fill(std::size_t, backend::BufferImpl&, std::size_t, std::size_t, const void*,
               std::size_t) override {
        return points_++;
    }
    Point launch(std::size_t, backend::KernelImpl&, const backend::LaunchGeometry&,
                 backend::KernelArgs) override {
        return points_++;
    }
    std::shared_ptr<backend::RecordingImpl> finish(const std::shared_ptr<backend::RecordingImpl>&,
                                                   bool&) override {
        return nullptr;  // never asked: end_digest ends a digest
    }

private:
    std::size_t lanes_ = 1;
    Point points_ = 0;
};

}  // namespace

void begin_digest(const std::vector<Queue>& lanes) {
    for (const Queue& queue : lanes)
        if (backend_of(queue)->recording() != nullptr)
            raise_argument("Pipeline::run", "a queue of the Pipeline is recording already");
    auto under_way = std::make_shared<OpenRecording>();
    under_way->recorder = std::make_unique<DigestRecorder>();
    under_way->digest_only = true;
    for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
        const auto& impl = backend_of(lanes[lane]);
        if (lane > 0) under_way->recorder->add_lane();
        under_way->queues.push_back(impl);
        impl->recording_slot().reset(new QueueRecording(under_way, lane));
    }
}

std::uint64_t end_digest(const std::vector<Queue>& lanes) noexcept {
    std::uint64_t digest = 0;
    for (const Queue& queue : lanes) {
        QueueRecordingPtr& slot = backend_of(queue)->recording_slot();
        if (slot && slot->open()->digest_only) digest = slot->open()->digest.value();
        slot.reset();
    }
    return digest;
}

Event latest_recorded(const Queue& queue) { return backend_of(queue)->recording()->latest(); }

void record_own_wait(const Queue& queue, const Event& event) {
    backend_of(queue)->recording()->wait(*backend_of(event), false);
}

void confine_writes(const Queue& first, std::vector<const backend::BufferImpl*> buffers) {
    OpenRecording& open = *backend_of(first)->recording()->open();
    open.confined_to = std::move(buffers);
}

bool writes_elsewhere(const Recording& recording) noexcept {
    return !recording.state_ || recording.state_->writes_elsewhere;
}

std::uint64_t digest_of(const Recording& recording) noexcept {
    return recording.state_ ? recording.state_->digest : 0;
}

backend::EventPtr record_own_copy_to_device(const Queue& queue, const BufferView& dst,
                                            const void* src, std::size_t bytes,
                                            const char* operation) {
    backend::QueueImpl& impl = *backend_of(queue);
    const Event recorded = impl.recording()->copy_to_device(
        dst, pinned_for_recording(operation, "input", impl.device(), src, bytes), bytes, false);
    return backend_of(recorded);
}

backend::EventPtr record_own_copy_to_host(const Queue& queue, void* dst, const BufferView& src,
                                          std::size_t bytes, const char* operation) {
    backend::QueueImpl& impl = *backend_of(queue);
    const Event recorded = impl.recording()->copy_to_host(
        pinned_for_recording(operation, "output", impl.device(), dst, bytes), src, bytes, false);
    return backend_of(recorded);
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

Event Queue::recorded() const {
    // A command of no size records nothing: its Event is no point, and waiting for it nothing.
    return impl_->recording()->event_at(detail::QueueRecording::no_point);
}

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
    auto under_way = std::make_shared<detail::OpenRecording>();
    under_way->recorder = device_->create_recorder(*impl_);
    under_way->queues.push_back(impl_);
    impl_->recording_slot().reset(new detail::QueueRecording(std::move(under_way), 0));
}

void Queue::begin_recording(const Queue& origin) {
    const char* op = "Queue::begin_recording(origin)";
    require_valid(op);
    origin.require_valid(op);
    if (impl_->recording() != nullptr)
        detail::raise_argument(op, "this queue is recording already; end that recording first");
    detail::QueueRecording* joined = origin.impl_->recording();
    if (joined == nullptr || joined->lane() != 0)
        detail::raise_argument(op, "the origin queue is not the one that began a recording; "
                                   "call origin.begin_recording() first");
    if (origin.device_ != device_)
        detail::raise_argument(op, "the origin queue runs on device " +
                                       detail::device_label(origin.device_->info()) +
                                       ", but this queue on " +
                                       detail::device_label(device_->info()) +
                                       "; a recording's queues are of one device");
    const auto& under_way = joined->open();
    const std::size_t lane = under_way->recorder->add_lane();
    under_way->queues.push_back(impl_);
    impl_->recording_slot().reset(new detail::QueueRecording(under_way, lane));
}

bool Queue::recording() const {
    require_valid("Queue::recording");
    return impl_->recording() != nullptr;
}

std::shared_ptr<detail::RecordingState> Queue::finish_recording(
    const std::shared_ptr<detail::RecordingState>& previous) {
    const char* op = "Queue::end_recording";
    require_valid(op);
    detail::QueueRecording* recording = impl_->recording();
    if (recording == nullptr || recording->open()->digest_only)
        detail::raise_argument(op, "the queue is not recording; call begin_recording() first");
    if (recording->lane() != 0)
        detail::raise_argument(op, "this queue joined a recording another queue began; end it "
                                   "on that queue, which ends it for every queue");
    // The recording ends here on every queue whatever happens next: a failure leaves the
    // queues usable.
    const std::shared_ptr<detail::OpenRecording> under_way = recording->open();
    for (const auto& queue : under_way->queues) queue->recording_slot().reset();
    if (under_way->commands == 0)
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
    state->commands = under_way->commands;
    state->queues = under_way->queues.size();
    state->digest = under_way->digest.value();
    state->writes_elsewhere = under_way->confined_to.empty() || under_way->writes_elsewhere;
    state->kept = std::move(under_way->kept);
    state->impl = under_way->recorder->finish(previous ? previous->impl : nullptr,
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
        Sync::async, "a replay");
}

RecordingPath Recording::path() const { return state_ ? state_->path : RecordingPath::none; }
std::size_t Recording::commands() const { return state_ ? state_->commands : 0; }
std::size_t Recording::queues() const { return state_ ? state_->queues : 0; }
bool Recording::updated_in_place() const { return state_ && state_->updated_in_place; }

}  // namespace dualrt
