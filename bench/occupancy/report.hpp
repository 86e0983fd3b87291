// The occupancy benchmark's output for one kernel over every device: a line per device with the
// kernel's limits and suggested size, then one table row per work-group size with the rate and
// what occupancy() reported; the same rows for --csv in the ladders' common format.
#pragma once

#include "csv.hpp"
#include "sweep.hpp"

#include <ostream>
#include <vector>

namespace dualrt::samples::occupancy {

// The sweeps of one kernel, one per device.
struct KernelSweeps {
    const Workload* workload = nullptr;
    std::vector<SweepPlan> plans;
    std::vector<std::vector<SweepRow>> rows;  // rows[k] belong to plans[k]
};

void print(std::ostream& out, const KernelSweeps& sweeps);
// Appends the rows that ran to `csv` (LadderReport::csv_header()); the note column carries what
// occupancy() reported and whether the size is the suggested one.
void write(CsvWriter& csv, const KernelSweeps& sweeps);
// Whether every row that ran matched the CPU reference.
bool all_verified(const KernelSweeps& sweeps);

}  // namespace dualrt::samples::occupancy
