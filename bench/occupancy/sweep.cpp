#include "sweep.hpp"

#include <algorithm>
#include <iterator>

namespace dualrt::samples::occupancy {

SweepPlan plan_sweep(const Device& device, const Workload& workload) {
    SweepPlan plan;
    plan.device = device;
    plan.kernel = device.kernel(workload.kernel_name());  // built here, outside any timing
    plan.suggested = plan.kernel.suggest_group_size();
    plan.limits = plan.kernel.occupancy(plan.suggested);
    // occupancy() already holds the kernel's limit to the device's; the min keeps a backend
    // that reported none (0) from lifting it.
    plan.limit = plan.limits.max_group_size > 0
                     ? std::min(plan.limits.max_group_size, device.info().max_work_group_size)
                     : device.info().max_work_group_size;
    plan.sizes.assign(std::begin(swept_sizes), std::end(swept_sizes));
    if (std::find(plan.sizes.begin(), plan.sizes.end(), plan.suggested) == plan.sizes.end())
        plan.sizes.insert(std::upper_bound(plan.sizes.begin(), plan.sizes.end(), plan.suggested),
                          plan.suggested);
    return plan;
}

std::string rung_name(std::size_t group_size) { return "group " + std::to_string(group_size); }

std::vector<SweepRow> run_sweep(const SweepPlan& plan, Workload& workload, Queue& queue,
                                int warmup, int repetitions, Progress& progress) {
    std::vector<SweepRow> rows;
    const std::string backend = to_string(plan.device.backend());
    for (const std::size_t size : plan.sizes) {
        progress.step(backend + ": " + workload.kernel_name() + ", " + rung_name(size));
        SweepRow row;
        row.group_size = size;
        row.suggested = size == plan.suggested;
        if (size > plan.limit) {
            row.skipped = "above the kernel's limit of " + std::to_string(plan.limit);
            rows.push_back(std::move(row));
            continue;
        }
        row.occupancy = plan.kernel.occupancy(size);
        workload.poison(queue);
        RungResult& result = row.result;
        result.rung = rung_name(size);
        result.backend = plan.device.backend();
        result.device = plan.device.info().name;
        result.work = workload.work();
        result.timing = time_on_device(queue, warmup, repetitions,
                                       [&] { workload.launch(queue, plan.kernel, size); });
        result.note = workload.verify(queue);
        result.verified = result.note.empty();
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace dualrt::samples::occupancy
