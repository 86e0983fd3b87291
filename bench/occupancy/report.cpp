#include "report.hpp"

#include "options.hpp"
#include "table.hpp"

#include <algorithm>

namespace dualrt::samples::occupancy {
namespace {

std::string percent(double share) { return fixed(100.0 * share, 1) + "%"; }

// The kernel's own figures, from occupancy() of the suggested size.
std::string limits_line(const SweepPlan& plan) {
    const KernelOccupancy& k = plan.limits;
    const auto& info = plan.device.info();
    return std::string(to_string(info.backend)) + " '" + info.name +
           "': largest work-group " + std::to_string(plan.limit) + ", preferred multiple " +
           std::to_string(k.preferred_multiple) + ", " +
           (k.registers_per_item ? std::to_string(*k.registers_per_item) : std::string("n/a")) +
           " registers/work-item, " + format_bytes(k.static_local_bytes) + " static local, " +
           format_bytes(k.private_bytes) + " private/work-item; suggest_group_size() = " +
           std::to_string(plan.suggested);
}

std::string resident_cell(const KernelOccupancy& k) {
    return k.resident_groups ? std::to_string(*k.resident_groups) : "n/a";
}
std::string occupancy_cell(const KernelOccupancy& k) {
    return k.occupancy ? percent(*k.occupancy) : "n/a";
}

// What occupancy() said, for the CSV's note column.
std::string occupancy_note(const SweepRow& row) {
    const KernelOccupancy& k = row.occupancy;
    std::string note = "resident groups/CU " + resident_cell(k) + "; occupancy " +
                       occupancy_cell(k) + "; preferred multiple " +
                       std::to_string(k.preferred_multiple);
    if (row.suggested) note += "; suggested";
    return note;
}

// Every row that ran, as a ladder report: its OpenCL/CUDA column pairs rows of one GPU.
LadderReport ladder(const KernelSweeps& sweeps) {
    LadderReport report(std::string("occupancy ") + sweeps.workload->kernel_name(),
                        sweeps.workload->unit());
    for (const auto& rows : sweeps.rows)
        for (const auto& row : rows)
            if (row.skipped.empty()) report.add(row.result);
    return report;
}

// The best rate among the rows of one sweep, for the "% of best" column.
double best_rate(const std::vector<SweepRow>& rows) {
    double best = 0.0;
    for (const auto& row : rows)
        if (row.skipped.empty()) best = std::max(best, row.result.rate());
    return best;
}

}  // namespace

void print(std::ostream& out, const KernelSweeps& sweeps) {
    out << "\n" << sweeps.workload->describe() << "\n";
    for (const auto& plan : sweeps.plans) out << "  " << limits_line(plan) << "\n";
    const LadderReport report = ladder(sweeps);
    Table table({"group", "backend", "median ms", sweeps.workload->unit(), "% of best",
                 "OpenCL/CUDA", "groups/CU", "occupancy", "multiple", "check"});
    for (std::size_t k = 0; k < sweeps.plans.size(); ++k) {
        const std::string backend = to_string(sweeps.plans[k].device.backend());
        const double best = best_rate(sweeps.rows[k]);
        for (const auto& row : sweeps.rows[k]) {
            const std::string group = std::to_string(row.group_size) + (row.suggested ? " *" : "");
            if (!row.skipped.empty()) {
                table.add({group, backend, "-", "-", "-", "-", "-", "-", "-",
                           "skipped: " + row.skipped});
                continue;
            }
            const RungResult& r = row.result;
            const double ratio = report.opencl_over_cuda(r);
            table.add({group, backend, fixed(r.timing.median_ms, 4), fixed(r.rate(), 1),
                       best > 0.0 ? percent(r.rate() / best) : "-",
                       ratio > 0.0 ? fixed(ratio, 3) : "-", resident_cell(row.occupancy),
                       occupancy_cell(row.occupancy),
                       std::to_string(row.occupancy.preferred_multiple),
                       r.verified ? "ok" : "WRONG: " + r.note});
        }
    }
    table.print(out);
    out << "* = suggest_group_size(); groups/CU and occupancy from Kernel::occupancy() (n/a: "
           "OpenCL has no such query)\n";
}

void write(CsvWriter& csv, const KernelSweeps& sweeps) {
    LadderReport report(std::string("occupancy ") + sweeps.workload->kernel_name(),
                        sweeps.workload->unit());
    for (const auto& rows : sweeps.rows)
        for (const auto& row : rows) {
            if (!row.skipped.empty()) continue;
            RungResult result = row.result;
            const std::string note = occupancy_note(row);
            result.note = result.verified ? note : result.note + "; " + note;
            report.add(std::move(result));
        }
    report.write(csv);
}

bool all_verified(const KernelSweeps& sweeps) { return ladder(sweeps).all_verified(); }

}  // namespace dualrt::samples::occupancy
