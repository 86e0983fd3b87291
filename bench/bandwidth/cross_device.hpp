// bandwidth --cross: copies between the selected device and every other device present (peer
// where the pair has it, else staged through pinned host memory), beside the selected device's
// pinned H2D and D2H of the same run.
#pragma once

#include "native_baseline.hpp"

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <iostream>

namespace dualrt::samples::bandwidth {

// Prints one table: for each other device, both directions, GB/s (host clock around a blocking
// copy, median of `repetitions` after a warm-up; each direction checked once against the data
// sent) and the ratio to the slower of `device`'s pinned H2D and D2H measured the same way. For
// pairs with peer access, `native`'s hand-written peer copy of the same run beside it (target
// 0.95x); staged pairs of two GPUs against the pinned rate (target 0.8x).
void print_cross_device(const Device& device, bench::NativeBaseline& native, std::size_t bytes,
                        int repetitions, std::ostream& out);

// Prints, for each other device that shares memory with `device` (alloc_shared: the CUDA and
// the OpenCL device of one GPU), the device time of saxpy over shared memory and over the same
// device's own buffer, on both sides. Prints a line saying so when no device shares.
void print_shared_memory(const Device& device, std::size_t bytes, int repetitions,
                         std::ostream& out);

}  // namespace dualrt::samples::bandwidth
