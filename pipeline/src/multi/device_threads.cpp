#include "multi/device_threads.hpp"

namespace dualrt::detail {

DeviceThreads::DeviceThreads(std::size_t devices) {
    for (std::size_t d = 1; d < devices; ++d) threads_.emplace_back([this, d] { serve(d); });
}

DeviceThreads::~DeviceThreads() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closing_ = true;
    }
    started_.notify_all();
    for (std::thread& thread : threads_) thread.join();
}

void DeviceThreads::run_each(const std::function<void(std::size_t)>& job) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        job_ = &job;
        running_ = threads_.size();
        ++generation_;
    }
    started_.notify_all();
    job(0);
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return running_ == 0; });
    job_ = nullptr;
}

void DeviceThreads::serve(std::size_t d) {
    std::size_t done = 0;  // the last run this thread took part in
    for (;;) {
        const std::function<void(std::size_t)>* job = nullptr;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            started_.wait(lock, [&] { return closing_ || generation_ != done; });
            if (closing_) return;
            done = generation_;
            job = job_;
        }
        (*job)(d);
        std::lock_guard<std::mutex> lock(mutex_);
        if (--running_ == 0) finished_.notify_one();
    }
}

}  // namespace dualrt::detail
