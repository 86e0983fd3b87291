#include "runtime/enqueue_watch.hpp"

namespace dualrt::detail {
namespace {

// A pointer test per enqueue where no watch is set: the check costs nothing measurable.
thread_local EnqueueWatch* current_watch = nullptr;

}  // namespace

EnqueueWatch::EnqueueWatch(const backend::DeviceImpl& device, const backend::QueueImpl& ordered)
    : device_(device), ordered_(ordered), enclosing_(current_watch) {
    current_watch = this;
}

EnqueueWatch::~EnqueueWatch() { current_watch = enclosing_; }

void watch_enqueue(const backend::DeviceImpl& device, const backend::QueueImpl& queue,
                   const char* what, const std::string* name) {
    EnqueueWatch* watch = current_watch;
    if (watch == nullptr || &device != &watch->device_ || &queue == &watch->ordered_) return;
    if (!watch->unordered_.empty()) return;
    watch->unordered_ = name != nullptr ? std::string(what) + " '" + *name + "'" : what;
    watch->unordered_queue_ = &queue;
}

void watch_wait(const backend::QueueImpl& queue) {
    EnqueueWatch* watch = current_watch;
    if (watch != nullptr && &queue == &watch->ordered_) watch->unordered_.clear();
}

void watch_host_wait(const backend::DeviceImpl& device) {
    EnqueueWatch* watch = current_watch;
    if (watch != nullptr && &device == &watch->device_) watch->unordered_.clear();
}

void watch_finish(const backend::QueueImpl& queue) {
    EnqueueWatch* watch = current_watch;
    if (watch != nullptr && &queue == watch->unordered_queue_) watch->unordered_.clear();
}

}  // namespace dualrt::detail
