#include "pocl_launch_guard.hpp"

#include "check.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <utility>

namespace dualrt::opencl {
namespace {

using Extent = std::array<std::size_t, 3>;

// The launches of one kernel and local size.
struct Launches {
    std::size_t in_flight = 0;  // enqueued, their completion callback not yet run
    Extent grid{};              // theirs, while in_flight > 0
    std::size_t waiting = 0;    // launches over another grid, waiting for these to finish
};

struct Guard {
    std::mutex mutex;
    std::condition_variable changed;  // some launch finished
    // Nodes are never erased: callbacks point into them.
    std::map<std::pair<std::string, Extent>, Launches> kernels;
};

Guard& guard() {
    static Guard* instance = new Guard;  // never destroyed: callbacks may run during exit
    return *instance;
}

// Runs on a PoCL thread when a launch has finished, or failed (OpenCL calls CL_COMPLETE
// callbacks for both), after PoCL has given back its work-group function.
void CL_CALLBACK launch_finished(cl_event, cl_int, void* launches) {
    Guard& g = guard();
    {
        std::lock_guard<std::mutex> lock(g.mutex);
        --static_cast<Launches*>(launches)->in_flight;
    }
    g.changed.notify_all();
}

}  // namespace

void pocl_guarded_launch(const std::string& name, const Extent& local, const Extent& grid,
                         const cl::CommandQueue& queue, cl::Event& event,
                         const std::function<void(cl::Event*)>& enqueue) {
    Guard& g = guard();
    std::unique_lock<std::mutex> lock(g.mutex);
    Launches& launches = g.kernels[{name, local}];
    if (launches.in_flight > 0 && (launches.grid != grid || launches.waiting > 0)) {
        const bool other = launches.grid != grid;
        if (other) ++launches.waiting;
        g.changed.wait(lock, [&] {
            return launches.in_flight == 0 ||
                   (launches.grid == grid && (other || launches.waiting == 0));
        });
        if (other) --launches.waiting;
    }
    launches.grid = grid;
    enqueue(&event);  // under the lock: no launch over another grid is enqueued in between
    ++launches.in_flight;
    lock.unlock();

    // Built only when a call fails (CL_CHECK evaluates its context then): no string per launch.
    const auto context = [&] { return "watching a launch of kernel '" + name + "' (PoCL)"; };
    try {
        // Flushed, a launch finishes without anyone waiting for it, so one over another grid
        // never waits for a launch that nothing submits.
        CL_CHECK(queue.flush(), context());
        // The callback may run at once, on this thread: the lock is not held here.
        CL_CHECK(event.setCallback(CL_COMPLETE, launch_finished, &launches), context());
    } catch (...) {
        launch_finished(nullptr, CL_COMPLETE, &launches);
        throw;
    }
}

}  // namespace dualrt::opencl
