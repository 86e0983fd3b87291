// One kernel on one device, timed at each work-group size of the sweep, with what
// Kernel::occupancy() reports for that size and which size Kernel::suggest_group_size() picks.
#pragma once

#include "ladder.hpp"
#include "progress.hpp"
#include "workloads.hpp"

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::samples::occupancy {

// The sizes every sweep tries: powers of two from one warp to the largest block CUDA allows.
inline constexpr std::size_t swept_sizes[] = {32, 64, 128, 256, 512, 1024};

// What is known before timing: the kernel, its limits, the suggested size, and the sizes to try
// (swept_sizes plus the suggested one where it is none of them, ascending).
struct SweepPlan {
    Device device;
    Kernel kernel;
    std::size_t suggested = 0;  // suggest_group_size()
    std::size_t limit = 0;      // the largest work-group the kernel can run here
    KernelOccupancy limits;     // occupancy(suggested): the kernel's own limits and usage
    std::vector<std::size_t> sizes;
};

// Builds the kernel of `workload` on `device` and plans its sweep.
SweepPlan plan_sweep(const Device& device, const Workload& workload);

struct SweepRow {
    std::size_t group_size = 0;
    bool suggested = false;     // the size suggest_group_size() picked
    std::string skipped;        // why the size was not run; "" when it was
    KernelOccupancy occupancy;  // what occupancy() reported for the size (when run)
    RungResult result;          // the timing and check (when run)
};

// "group 256", the rung's name in the table and CSV.
std::string rung_name(std::size_t group_size);

// Times `plan` on `queue` (of the plan's device), one row per size: the workload's buffers must
// be prepared on that device. Each size's output is checked after its timed runs.
std::vector<SweepRow> run_sweep(const SweepPlan& plan, Workload& workload, Queue& queue,
                                int warmup, int repetitions, Progress& progress);

}  // namespace dualrt::samples::occupancy
