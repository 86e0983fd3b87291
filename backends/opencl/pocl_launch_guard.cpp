#include "pocl_launch_guard.hpp"

#include "check.hpp"

#include <condition_variable>
#include <map>
#include <mutex>

namespace dualrt::opencl {
namespace {

struct KernelLaunches {
    std::map<std::array<std::size_t, 3>, std::size_t> widest;  // per local size
    std::size_t in_flight = 0;  // launches enqueued whose completion callback has not run
    bool widening = false;      // a launch over a wider grid is waiting or running
};

struct Guard {
    std::mutex mutex;
    std::condition_variable changed;  // a launch finished, or a widening launch did
    std::map<std::string, KernelLaunches> kernels;  // nodes never erased: callbacks point in
};

Guard& guard() {
    static Guard* instance = new Guard;  // never destroyed: callbacks may run during exit
    return *instance;
}

// Runs on a PoCL thread when a launch has finished, or failed (OpenCL calls CL_COMPLETE
// callbacks for both).
void CL_CALLBACK launch_finished(cl_event, cl_int, void* launches) {
    Guard& g = guard();
    {
        std::lock_guard<std::mutex> lock(g.mutex);
        --static_cast<KernelLaunches*>(launches)->in_flight;
    }
    g.changed.notify_all();
}

// Counts the enqueued launch behind `event` as in flight until its callback runs. Called
// without the guard's lock: the callback may run at once, on this thread.
void watch(KernelLaunches& launches, const cl::CommandQueue& queue, cl::Event& event,
           const std::string& name) {
    const std::string context = "watching a launch of kernel '" + name + "' (PoCL)";
    {
        std::lock_guard<std::mutex> lock(guard().mutex);
        ++launches.in_flight;
    }
    try {
        // A flushed launch finishes without anyone waiting for it, so a widening launch on
        // another queue never waits for one that nothing submits.
        CL_CHECK(queue.flush(), context);
        CL_CHECK(event.setCallback(CL_COMPLETE, launch_finished, &launches), context);
    } catch (...) {
        launch_finished(nullptr, CL_COMPLETE, &launches);
        throw;
    }
}

// Waits until the launch behind `event` has ended. A failed launch is reported by its event's
// owner; here only its end matters.
void wait_for_end(const cl::Event& event) {
    try {
        event.wait();
    } catch (const cl::Error& error) {
        if (error.err() != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) throw;
    }
}

}  // namespace

void pocl_guarded_launch(const std::string& name, const std::array<std::size_t, 3>& local,
                         std::size_t width, const cl::CommandQueue& queue, cl::Event& event,
                         const std::function<void(cl::Event*)>& enqueue) {
    Guard& g = guard();
    std::unique_lock<std::mutex> lock(g.mutex);
    KernelLaunches& launches = g.kernels[name];
    g.changed.wait(lock, [&] { return !launches.widening; });
    std::size_t& widest = launches.widest[local];
    if (width <= widest) {
        enqueue(&event);  // under the lock, so no widening launch starts in between
        lock.unlock();
        watch(launches, queue, event, name);
        return;
    }
    launches.widening = true;
    g.changed.wait(lock, [&] { return launches.in_flight == 0; });
    lock.unlock();
    try {
        enqueue(&event);
        CL_CHECK(queue.flush(), "submitting a launch of kernel '" + name + "' over a wider grid");
        CL_CHECK_SYNC(wait_for_end(event), "waiting for a launch of kernel '" + name +
                                               "' over a wider grid (PoCL)");
    } catch (...) {
        lock.lock();
        launches.widening = false;
        lock.unlock();
        g.changed.notify_all();
        throw;
    }
    lock.lock();
    widest = width;
    launches.widening = false;
    lock.unlock();
    g.changed.notify_all();
}

}  // namespace dualrt::opencl
