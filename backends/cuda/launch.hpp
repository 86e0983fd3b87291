// Turning a launch with OpenCL meaning into cuLaunchKernel's grid, block, shared memory and
// argument pointers.
#pragma once

#include "backend/backend.hpp"

#include <cuda.h>

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::cuda {

class DeviceImpl;
class KernelImpl;

// grid = global / local and block = local per dimension, so that the get_global_id() of
// kernels/cu/dualrt_kernel.cuh equals OpenCL's for the same launch.
struct LaunchConfig {
    int dims = 1;
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};

    std::string describe() const;  // "a grid of 4x1 blocks of 256x1 threads"
};

// Throws Errc::invalid_argument naming the kernel, the extents and the device's limit when the
// grid exceeds what the device can launch (gridDim.y and .z stop at 65535). The core has checked
// the block against the device's and the kernel's limits.
LaunchConfig launch_config(const KernelImpl& kernel, const DeviceImpl& device,
                           const backend::LaunchGeometry& geometry);

// cuLaunchKernel's argument array: a pointer to each argument's value. Buffers pass their device
// address plus the view's offset; each local-memory argument gets a 16-byte aligned slice of the
// block's dynamic shared memory and passes its byte offset (dualrt_local<T> in the kernel).
// Borrows `args`, which must outlive the launch call. Kernels of up to `inline_count` arguments
// (all the usual ones) allocate nothing: a launch is on the hot path.
class LaunchArguments {
public:
    explicit LaunchArguments(backend::KernelArgs args);
    LaunchArguments(const LaunchArguments&) = delete;
    LaunchArguments& operator=(const LaunchArguments&) = delete;

    void** pointers() { return pointers_; }
    std::size_t shared_bytes() const { return shared_bytes_; }

private:
    static constexpr std::size_t inline_count = 16;

    // One slot per argument; only the slots of the argument's kind are used. The pointers point
    // into these, so the object is neither copied nor moved. Left uninitialised: the constructor
    // writes what each argument uses, where zeroing all sixteen of both would cost every launch
    // about as much as the core's checks of it (for the core's own such storage, some 150
    // instructions under callgrind).
    struct Slot {
        CUdeviceptr address;
        unsigned shared_offset;
    };
    Slot inline_slots_[inline_count];
    void* inline_pointers_[inline_count];
    std::vector<Slot> more_slots_;        // used instead when there are more arguments
    std::vector<void*> more_pointers_;
    void** pointers_ = inline_pointers_;
    std::size_t shared_bytes_ = 0;
};

}  // namespace dualrt::cuda
