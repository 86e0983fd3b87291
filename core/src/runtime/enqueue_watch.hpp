// A watch over the commands one thread enqueues on one device while it runs work whose results
// are read after one queue alone: a Pipeline's compute function, whose chunk is downloaded after
// `chunk.queue`. A command on another queue of that device is ordered before the download only if
// `chunk.queue` waits for an event after it; without that wait the download may read the chunk
// before the command has written it, a wrong result with no error. The watch makes it an error.
// Internal.
#pragma once

#include "backend/backend.hpp"

#include <string>

namespace dualrt::detail {

class EnqueueWatch {
public:
    // Watches this thread's enqueues on `device` until destroyed (watches nest).
    EnqueueWatch(const backend::DeviceImpl& device, const backend::QueueImpl& ordered);
    ~EnqueueWatch();
    EnqueueWatch(const EnqueueWatch&) = delete;
    EnqueueWatch& operator=(const EnqueueWatch&) = delete;

    // The first command enqueued on another queue of the device and not ordered since before
    // `ordered`'s later work ("" when there is none).
    const std::string& unordered() const { return unordered_; }

private:
    friend void watch_enqueue(const backend::DeviceImpl&, const backend::QueueImpl&,
                              const char*, const std::string*);
    friend void watch_wait(const backend::QueueImpl&);
    friend void watch_host_wait(const backend::DeviceImpl&);
    friend void watch_finish(const backend::QueueImpl&);
    const backend::DeviceImpl& device_;
    const backend::QueueImpl& ordered_;
    std::string unordered_;
    const backend::QueueImpl* unordered_queue_ = nullptr;
    EnqueueWatch* enclosing_;
};

// An asynchronous command was enqueued on `queue` of `device`: `what` ("a launch of") and the
// kernel's `name`, or `what` alone ("a copy or fill", "a replay"). Called for every such
// enqueue: no text is made unless a watch is set. (A blocking command has ended when its call
// returns: it is ordered.)
void watch_enqueue(const backend::DeviceImpl& device, const backend::QueueImpl& queue,
                   const char* what, const std::string* name = nullptr);
// `queue` now waits for an event: work enqueued on other queues before that event is ordered
// before `queue`'s later work. Which event is not checked: waiting at all is the rule's form.
void watch_wait(const backend::QueueImpl& queue);
// The host waited for an event of `device`, or for everything on `queue`: what was waited for
// has ended. As for watch_wait, which event is not checked.
void watch_host_wait(const backend::DeviceImpl& device);
void watch_finish(const backend::QueueImpl& queue);

}  // namespace dualrt::detail
