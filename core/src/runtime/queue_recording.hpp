// What the core keeps of a recording: while it is under way on a queue (QueueRecording, in the
// queue's slot), and once it is a Recording (RecordingState). The backend records the commands;
// the core keeps every object they use alive and counts them. Internal.
#pragma once

#include <dualrt/queue.hpp>
#include <dualrt/recording.hpp>

#include "backend/backend.hpp"
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
    bool updated_in_place = false;
    std::uint64_t fingerprint = 0;  // QueueRecording::fingerprint of its commands
    // The buffers, host buffers and kernels the commands use: the driver's objects must outlive
    // every replay.
    std::vector<std::shared_ptr<const void>> kept;
};

// The commands recorded on one queue, in order: handed to the backend's recorder, their objects
// kept, and a fingerprint of them all taken (what each command does and on which memory, its
// scalar arguments' bytes), by which a Pipeline tells whether a run enqueues what its recording
// holds. Without a recorder the commands are only fingerprinted.
class QueueRecording {
public:
    explicit QueueRecording(std::unique_ptr<backend::RecorderImpl> recorder)
        : recorder_(std::move(recorder)) {}

    void copy_to_device(const BufferView& dst, const PinnedHolder& host, std::size_t bytes);
    void copy_to_host(const PinnedHolder& host, const BufferView& src, std::size_t bytes);
    void copy_device(const BufferView& dst, const BufferView& src);
    void fill(const BufferView& dst, const void* pattern, std::size_t pattern_size);
    // `args` checked; `arguments` the caller's, whose buffers are kept.
    void launch(const Kernel& kernel, const backend::LaunchGeometry& geometry,
                backend::KernelArgs args, const KernelArgument* arguments, std::size_t count);

    backend::RecorderImpl* recorder() { return recorder_.get(); }
    std::size_t commands() const { return commands_; }
    std::uint64_t fingerprint() const { return fingerprint_; }
    std::vector<std::shared_ptr<const void>> take_kept() { return std::move(kept_); }

private:
    void mix(const void* data, std::size_t bytes);  // FNV-1a over the bytes
    template <typename... Values>
    void mix_values(const Values&... values) {
        (mix(&values, sizeof values), ...);
    }

    std::unique_ptr<backend::RecorderImpl> recorder_;
    std::size_t commands_ = 0;
    std::uint64_t fingerprint_ = 14695981039346656037ull;  // FNV-1a's offset basis
    std::vector<std::shared_ptr<const void>> kept_;
};

// The pinned allocation that holds a recorded copy's host side, for `device`; where there is
// none, Errc::invalid_argument from `operation` naming the `role` ("source").
PinnedHolder pinned_for_recording(const char* operation, const char* role,
                                  const backend::DeviceImpl& device, const void* data,
                                  std::size_t bytes);

// For the library's own code that enqueues on the backend directly (the Pipeline's chunk copies,
// whose host side is pinned or staged): the copy recorded where `queue` records, returning null,
// else enqueued with Sync::async, returning its event. A host range that a recording cannot hold
// (not pinned for the queue's device) is Errc::invalid_argument.
std::shared_ptr<backend::EventImpl> copy_to_device_or_record(const Queue& queue,
                                                             const BufferView& dst,
                                                             const void* src, std::size_t bytes);
std::shared_ptr<backend::EventImpl> copy_to_host_or_record(const Queue& queue, void* dst,
                                                           const BufferView& src,
                                                           std::size_t bytes);

// For the Pipeline's replays: begin_fingerprint makes `queue` take the fingerprint of the commands
// enqueued on it, running and recording none of them (as a recording does, refusing what it
// would refuse); end_fingerprint ends that and returns it, to compare with the fingerprint of a
// Recording of the same commands (recorded_fingerprint).
void begin_fingerprint(const Queue& queue);
std::uint64_t end_fingerprint(const Queue& queue);
std::uint64_t recorded_fingerprint(const Recording& recording) noexcept;

// The event a recorded command returns: it exists only in the recording, so waiting for it or
// timing it throws Errc::invalid_argument saying so.
std::shared_ptr<backend::EventImpl> recorded_event(
    std::shared_ptr<const backend::DeviceImpl> device);
bool is_recorded_event(const backend::EventImpl& event);

}  // namespace dualrt::detail
