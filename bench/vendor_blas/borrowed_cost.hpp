// What a borrowed queue costs (interop.hpp's wrap_queue) beside one of dualrt's own: the same
// operations on a Queue from Device::create_queue and on a Queue wrapped (Ownership::borrow)
// around the native handle of another queue of the device, so that both native queues have the
// same properties (a non-blocking CUDA stream; an OpenCL queue with profiling) and only the
// wrapper differs. Measured alternately, the median of each.
#pragma once

#include <dualrt/dualrt.hpp>

#include <string>
#include <vector>

namespace dualrt::samples::vendor_blas {

struct CostRow {
    std::string measure;   // "launch enqueue (events discarded)"
    std::string unit;      // "us" or "GB/s"
    double own = 0.0;      // on dualrt's own queue
    double borrowed = 0.0; // on the borrowed queue
    // borrowed / own for times, own / borrowed for rates: above 1, the borrowed queue is slower.
    double slowdown() const;
};

// Host time of `launches` back-to-back launches of the `empty` kernel (per launch), of one launch
// and wait, of one 4 KiB pinned copy and wait, and the rate of `large_bytes` pinned host-to-device
// copies; `repetitions` of each, alternating the queues.
std::vector<CostRow> measure_borrowed_cost(const Device& device, int launches, int repetitions,
                                           std::size_t large_bytes);

}  // namespace dualrt::samples::vendor_blas
