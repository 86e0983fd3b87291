// What the core keeps of a recording: while it is under way (an OpenRecording, shared by the
// QueueRecording in the slot of each queue that records into it), and once it is a Recording
// (RecordingState). The backend records the commands; the core keeps every object they use alive,
// counts them, and turns waits between the recording's queues into the backend's waits between
// lanes. Internal.
#pragma once

#include <dualrt/queue.hpp>
#include <dualrt/recording.hpp>

#include "backend/backend.hpp"
#include "staging/pinned_ranges.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace dualrt::detail {

struct RecordingState {
    std::shared_ptr<backend::DeviceImpl> device;
    std::shared_ptr<backend::RecordingImpl> impl;
    RecordingPath path = RecordingPath::none;
    std::size_t commands = 0;
    std::size_t queues = 1;
    bool updated_in_place = false;
    // The buffers, host buffers and kernels the commands use: the driver's objects must outlive
    // every replay.
    std::vector<std::shared_ptr<const void>> kept;
};

// One recording under way: the backend's recorder and the queues recording into it (lane k is
// queues[k]; the first began it and ends it).
struct OpenRecording {
    std::unique_ptr<backend::RecorderImpl> recorder;
    std::vector<std::shared_ptr<backend::QueueImpl>> queues;
    std::size_t commands = 0;
    std::vector<std::shared_ptr<const void>> kept;
};

// A queue's part in an open recording: each command goes to its recorder on the queue's lane,
// its objects are kept, and it returns an Event of the recording (recorded_event).
class QueueRecording {
public:
    QueueRecording(std::shared_ptr<OpenRecording> under_way, std::size_t lane)
        : open_(std::move(under_way)), lane_(lane) {}

    Event copy_to_device(const BufferView& dst, const PinnedHolder& host, std::size_t bytes);
    Event copy_to_host(const PinnedHolder& host, const BufferView& src, std::size_t bytes);
    Event copy_device(const BufferView& dst, const BufferView& src);
    Event fill(const BufferView& dst, const void* pattern, std::size_t pattern_size);
    // `args` checked; `arguments` the caller's, whose buffers are kept.
    Event launch(const Kernel& kernel, const backend::LaunchGeometry& geometry,
                 backend::KernelArgs args, const KernelArgument* arguments, std::size_t count);
    // This queue's later commands wait for `event`, a recorded command's. Throws
    // Errc::invalid_argument for any other event: a recording's work waits only on its own.
    void wait(const backend::EventImpl& event);

    const std::shared_ptr<OpenRecording>& open() const { return open_; }
    std::size_t lane() const { return lane_; }
    // An Event of this recording at `point` (no_point: of a command that recorded nothing).
    Event event_at(backend::RecorderImpl::Point point) const;
    static constexpr backend::RecorderImpl::Point no_point = ~backend::RecorderImpl::Point{0};

private:
    Event added(backend::RecorderImpl::Point point,
                std::initializer_list<std::shared_ptr<const void>> kept);

    std::shared_ptr<OpenRecording> open_;
    std::size_t lane_;
};

// The pinned allocation that holds a recorded copy's host side, for `device`; where there is
// none, Errc::invalid_argument from `operation` naming the `role` ("source").
PinnedHolder pinned_for_recording(const char* operation, const char* role,
                                  const backend::DeviceImpl& device, const void* data,
                                  std::size_t bytes);

// Whether `event` is a recorded command's, which exists only in its recording.
bool is_recorded_event(const backend::EventImpl& event);

}  // namespace dualrt::detail
