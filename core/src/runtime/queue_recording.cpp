#include "runtime/queue_recording.hpp"

#include <dualrt/queue.hpp>

#include "backend/backend_access.hpp"
#include "backend/launch_journal.hpp"
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

std::shared_ptr<backend::EventImpl> recorded_event(
    std::shared_ptr<const backend::DeviceImpl> device) {
    return std::make_shared<RecordedEvent>(device);
}

bool is_recorded_event(const backend::EventImpl& event) {
    return dynamic_cast<const RecordedEvent*>(&event) != nullptr;
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
    state->kept = recording->take_kept();
    state->impl = recording->recorder().finish(previous ? previous->impl : nullptr,
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
