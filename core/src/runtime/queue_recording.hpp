// What the core keeps of a recording: while it is under way on a queue (QueueRecording, in the
// queue's slot), and once it is a Recording (RecordingState). The backend records the commands;
// the core keeps every object they use alive and counts them. Internal.
#pragma once

#include <dualrt/recording.hpp>

#include "backend/backend.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace dualrt::detail {

struct RecordingState {
    std::shared_ptr<backend::DeviceImpl> device;
    std::shared_ptr<backend::RecordingImpl> impl;
    RecordingPath path = RecordingPath::none;
    std::size_t commands = 0;
    bool updated_in_place = false;
    // The buffers, host buffers and kernels the commands use: the driver's objects must outlive
    // every replay.
    std::vector<std::shared_ptr<const void>> kept;
};

class QueueRecording {
public:
    explicit QueueRecording(std::unique_ptr<backend::RecorderImpl> recorder)
        : recorder_(std::move(recorder)) {}
    backend::RecorderImpl& recorder() { return *recorder_; }
    // One more command, using `objects`.
    void add(std::initializer_list<std::shared_ptr<const void>> objects) {
        ++commands_;
        kept_.insert(kept_.end(), objects.begin(), objects.end());
    }
    void keep(std::shared_ptr<const void> object) { kept_.push_back(std::move(object)); }
    std::size_t commands() const { return commands_; }
    std::vector<std::shared_ptr<const void>> take_kept() { return std::move(kept_); }

private:
    std::unique_ptr<backend::RecorderImpl> recorder_;
    std::size_t commands_ = 0;
    std::vector<std::shared_ptr<const void>> kept_;
};

// The event a recorded command returns: it exists only in the recording, so waiting for it or
// timing it throws Errc::invalid_argument saying so.
std::shared_ptr<backend::EventImpl> recorded_event(
    std::shared_ptr<const backend::DeviceImpl> device);
bool is_recorded_event(const backend::EventImpl& event);

}  // namespace dualrt::detail
