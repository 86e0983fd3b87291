// What the core keeps of a recording: while it is under way (an OpenRecording, shared by the
// QueueRecording in the slot of each queue that records into it), and once it is a Recording
// (RecordingState). The backend records the commands; the core keeps every object they use alive,
// counts them, and turns waits between the recording's queues into the backend's waits between
// lanes. A recording also digests the commands it is given (command_digest.hpp), and an open
// recording may digest them alone, running and keeping nothing: the Pipeline's replays compare a
// run's commands with what their recording holds that way. Internal.
#pragma once

#include <dualrt/queue.hpp>
#include <dualrt/recording.hpp>

#include "backend/backend.hpp"
#include "runtime/command_digest.hpp"
#include "staging/pinned_ranges.hpp"

#include <cstddef>
#include <cstdint>
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
    std::uint64_t digest = 0;  // of the commands digested (QueueRecording)
    bool writes_elsewhere = false;  // OpenRecording::writes_elsewhere, when it ended
    // The buffers, host buffers and kernels the commands use: the driver's objects must outlive
    // every replay.
    std::vector<std::shared_ptr<const void>> kept;
};

// One recording under way: the backend's recorder and the queues recording into it (lane k is
// queues[k]; the first began it and ends it).
// A digest alone (begin_digest) has a recorder that records nothing and keeps no object.
struct OpenRecording {
    std::unique_ptr<backend::RecorderImpl> recorder;
    std::vector<std::shared_ptr<backend::QueueImpl>> queues;
    std::size_t commands = 0;
    std::vector<std::shared_ptr<const void>> kept;
    CommandDigest digest;
    bool digest_only = false;
    // Where `confined_to` is set (confine_writes): whether a digested command may write memory
    // outside those buffers (host memory, another buffer; a kernel may write any it is given).
    std::vector<const backend::BufferImpl*> confined_to;
    bool writes_elsewhere = false;
    void note_write(const backend::BufferImpl* buffer);
};

// A queue's part in an open recording: each command goes to its recorder on the queue's lane,
// its objects are kept, it is digested, and it returns an Event of the recording
// (recorded_event). The library's own copies (a Pipeline's chunk copies, which the layout of its
// run decides) pass `digested` false: a digest holds what the application's code enqueued.
class QueueRecording {
public:
    QueueRecording(std::shared_ptr<OpenRecording> under_way, std::size_t lane)
        : open_(std::move(under_way)), lane_(lane) {}

    Event copy_to_device(const BufferView& dst, const PinnedHolder& host, std::size_t bytes,
                         bool digested = true);
    Event copy_to_host(const PinnedHolder& host, const BufferView& src, std::size_t bytes,
                       bool digested = true);
    Event copy_device(const BufferView& dst, const BufferView& src);
    Event fill(const BufferView& dst, const void* pattern, std::size_t pattern_size);
    // `args` checked; `arguments` the caller's, whose buffers are kept.
    Event launch(const Kernel& kernel, const backend::LaunchGeometry& geometry,
                 backend::KernelArgs args, const KernelArgument* arguments, std::size_t count);
    // This queue's later commands wait for `event`, a recorded command's. Throws
    // Errc::invalid_argument for any other event: a recording's work waits only on its own.
    void wait(const backend::EventImpl& event, bool digested = true);

    const std::shared_ptr<OpenRecording>& open() const { return open_; }
    std::size_t lane() const { return lane_; }
    // An Event of this lane's latest recorded command (of no point before its first): a wait for
    // it waits for every command recorded on the lane so far, and for the waits recorded before
    // that command; not for waits recorded after it.
    Event latest() const { return event_at(latest_); }
    // An Event of this recording at `point` (no_point: of a command that recorded nothing).
    Event event_at(backend::RecorderImpl::Point point) const;
    static constexpr backend::RecorderImpl::Point no_point = ~backend::RecorderImpl::Point{0};

private:
    Event added(backend::RecorderImpl::Point point,
                std::initializer_list<std::shared_ptr<const void>> kept);

    std::shared_ptr<OpenRecording> open_;
    std::size_t lane_;
    backend::RecorderImpl::Point latest_ = no_point;
};

// The pinned allocation that holds a recorded copy's host side, for `device`; where there is
// none, Errc::invalid_argument from `operation` naming the `role` ("source").
PinnedHolder pinned_for_recording(const char* operation, const char* role,
                                  const backend::DeviceImpl& device, const void* data,
                                  std::size_t bytes);

// Whether `event` is a recorded command's, which exists only in its recording.
bool is_recorded_event(const backend::EventImpl& event);

// For the Pipeline's replays. begin_digest makes the queues `lanes` (of one device, none of them
// recording) lanes 0, 1, ... of one digest: the commands enqueued on them are checked and refused
// as a recording checks and refuses them, digested as it digests them, and neither run nor
// recorded; end_digest ends it on all of them and returns the digest, to compare with
// digest_of(a Recording of the same commands). Throws Errc::invalid_argument where a queue is
// recording already.
void begin_digest(const std::vector<Queue>& lanes);
std::uint64_t end_digest(const std::vector<Queue>& lanes) noexcept;
std::uint64_t digest_of(const Recording& recording) noexcept;

// The library's own copies on `queue`, which records: recorded (the host side must be pinned
// for the queue's device, else Errc::invalid_argument from `operation`) and not digested.
// Return the copy's recorded event.
backend::EventPtr record_own_copy_to_device(const Queue& queue, const BufferView& dst,
                                            const void* src, std::size_t bytes,
                                            const char* operation);
backend::EventPtr record_own_copy_to_host(const Queue& queue, void* dst, const BufferView& src,
                                          std::size_t bytes, const char* operation);
// The latest command recorded on `queue`, which records (QueueRecording::latest): where the
// library's own code would mark the queue outside a recording.
Event latest_recorded(const Queue& queue);
// The library's own wait on `queue`, which records, for `event` (of the recording): recorded,
// not digested.
void record_own_wait(const Queue& queue, const Event& event);
// From now on, the recording `first` began notes whether the digested commands may write outside
// `buffers` (writes_elsewhere): a replay that writes only those (the Pipeline's own chunk
// buffers) and the host memory of the library's own copies can run again, with other commands,
// and leave nothing else changed.
void confine_writes(const Queue& first, std::vector<const backend::BufferImpl*> buffers);
bool writes_elsewhere(const Recording& recording) noexcept;

}  // namespace dualrt::detail
