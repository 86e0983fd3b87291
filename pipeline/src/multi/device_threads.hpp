// The threads of a Pipeline over several devices: one per device beyond the first, kept from one
// run to the next. Internal.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace dualrt::detail {

// Runs a job for every device at once: device 0's on the calling thread, each other's on a
// thread of its own that waits between runs. Starting those threads for every run put them
// behind the first device by the time a thread takes to start, in every run.
class DeviceThreads {
public:
    explicit DeviceThreads(std::size_t devices);
    ~DeviceThreads();  // the threads finish (no run is in progress: run_each has returned)
    DeviceThreads(const DeviceThreads&) = delete;
    DeviceThreads& operator=(const DeviceThreads&) = delete;

    // job(d) for every device d; returns once every one has returned. `job` must not throw.
    void run_each(const std::function<void(std::size_t)>& job);

private:
    void serve(std::size_t d);

    std::mutex mutex_;
    std::condition_variable started_, finished_;
    const std::function<void(std::size_t)>* job_ = nullptr;
    std::size_t generation_ = 0;  // counts the runs, so a thread takes each run's job once
    std::size_t running_ = 0;     // threads still in this run's job
    bool closing_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace dualrt::detail
