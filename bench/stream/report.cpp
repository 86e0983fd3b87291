#include "report.hpp"

#include "options.hpp"
#include "native_common.hpp"
#include "table.hpp"

#include <algorithm>
#include <utility>

namespace dualrt::samples::stream {
namespace {

const char* to_string(HostMemory memory) {
    return memory == HostMemory::pinned ? "pinned" : "pageable";
}

// "0.982", or "-" for a ratio that does not apply.
std::string ratio_text(double ratio) { return ratio > 0.0 ? fixed(ratio, 3) : "-"; }

}  // namespace

Report::Report(std::size_t array_bytes, std::size_t min_staged_bytes, int repetitions,
               std::string backend, std::string device, CsvWriter csv)
    : array_bytes_(array_bytes),
      min_staged_bytes_(min_staged_bytes),
      repetitions_(repetitions),
      backend_(std::move(backend)),
      device_(std::move(device)),
      csv_(std::move(csv)) {}

const std::vector<std::string>& Report::csv_header() {
    static const std::vector<std::string> header = {
        "variant", "side", "host_memory", "array_bytes", "block_bytes", "blocks", "wall_ms",
        "device_ms", "gbps", "device_gbps", "enqueue_us_per_block", "vs_native_pinned",
        "vs_native_pageable", "target", "met", "verified", "repetitions", "backend", "device"};
    return header;
}

double Report::gbps(const Row& row) const {
    const double ms = row.result.timing.wall_ms;
    return ms > 0.0 ? 3.0 * static_cast<double>(array_bytes_) / (ms * 1e6) : 0.0;
}

double Report::device_gbps(const Row& row) const {
    const double ms = row.result.timing.device_ms;
    return ms > 0.0 ? 3.0 * static_cast<double>(array_bytes_) / (ms * 1e6) : 0.0;
}

double Report::ratio(const Row& row, HostMemory memory) const {
    if (row.native) return 0.0;
    for (const Row& other : rows_)
        if (other.native && other.memory == memory && other.block_bytes == row.block_bytes &&
            gbps(other) > 0.0)
            return gbps(row) / gbps(other);
    return 0.0;
}

double Report::target(const Row& row) const {
    if (row.native) return 0.0;
    if (row.memory == HostMemory::pinned) return pinned_target;
    return row.block_bytes >= min_staged_bytes_ ? staged_target : 0.0;
}

std::string Report::target_text(const Row& row) const {
    const double goal = target(row);
    if (goal <= 0.0) return row.native ? "-" : "- (not staged)";
    const bool met = ratio(row, HostMemory::pinned) >= goal;
    return ">= " + fixed(goal, 2) + (met ? " met" : " NOT met");
}

void Report::add(Row row) {
    rows_.push_back(std::move(row));
    const Row& r = rows_.back();
    const double goal = target(r);
    const double vs_pinned = ratio(r, HostMemory::pinned);
    const double vs_pageable = r.memory == HostMemory::pageable ? ratio(r, HostMemory::pageable)
                                                                : 0.0;
    const StreamTiming& t = r.result.timing;
    // Empty fields where a ratio or target does not apply.
    const auto optional = [](double value, int decimals) {
        return value > 0.0 ? fixed(value, decimals) : std::string();
    };
    const std::string met = goal > 0.0 ? (vs_pinned >= goal ? "yes" : "no") : "";
    csv_.row({r.name, r.native ? "native" : "dualrt", to_string(r.memory),
              std::to_string(array_bytes_), std::to_string(r.block_bytes),
              std::to_string(r.blocks), fixed(t.wall_ms, 4), fixed(t.device_ms, 4),
              fixed(gbps(r), 3), fixed(device_gbps(r), 3), fixed(t.enqueue_us, 3),
              optional(vs_pinned, 4), optional(vs_pageable, 4), optional(goal, 2), met,
              r.result.wrong.empty() ? "yes" : "no", std::to_string(repetitions_), backend_,
              device_});
}

std::vector<std::size_t> Report::block_sizes() const {
    std::vector<std::size_t> sizes;
    for (const Row& row : rows_)
        if (std::find(sizes.begin(), sizes.end(), row.block_bytes) == sizes.end())
            sizes.push_back(row.block_bytes);
    return sizes;
}

void Report::print(std::ostream& out) const {
    Table table({"block", "variant", "GB/s", "device GB/s", "enqueue us/block",
                 "vs native pinned", "vs native pageable", "target", "output"});
    for (const Row& row : rows_) {
        const double vs_pageable =
            row.memory == HostMemory::pageable ? ratio(row, HostMemory::pageable) : 0.0;
        table.add({format_bytes(row.block_bytes), row.name, fixed(gbps(row), 2),
                   fixed(device_gbps(row), 2), fixed(row.result.timing.enqueue_us, 2),
                   ratio_text(ratio(row, HostMemory::pinned)), ratio_text(vs_pageable),
                   target_text(row), row.result.wrong.empty() ? "ok" : "WRONG"});
    }
    table.print(out);
    for (const Row& row : rows_)
        if (!row.result.wrong.empty())
            out << "WRONG: " << row.name << " at " << format_bytes(row.block_bytes)
                << " blocks: " << row.result.wrong << "\n";
}

void Report::print_summary(std::ostream& out) const {
    const std::vector<std::size_t> sizes = block_sizes();
    std::vector<std::string> header = {"dualrt / native pinned"};
    for (std::size_t size : sizes) header.push_back(format_bytes(size));
    Table table(header);

    // The rows of one variant (or native baseline) by block size, through `cell`.
    std::vector<std::string> names;
    for (const Row& row : rows_)
        if (std::find(names.begin(), names.end(), row.name) == names.end())
            names.push_back(row.name);
    const auto line = [&](const std::string& label, const std::string& name, auto cell) {
        std::vector<std::string> cells = {label};
        for (std::size_t size : sizes) {
            const auto found = std::find_if(rows_.begin(), rows_.end(), [&](const Row& row) {
                return row.name == name && row.block_bytes == size;
            });
            cells.push_back(found == rows_.end() ? "" : cell(*found));
        }
        table.add(std::move(cells));
    };
    for (const std::string& name : names) {
        line(name, name, [&](const Row& row) -> std::string {
            if (!row.result.wrong.empty()) return "WRONG";
            if (row.native) return fixed(gbps(row), 1) + " GB/s";
            const double goal = target(row), value = ratio(row, HostMemory::pinned);
            return fixed(value, 2) + (goal > 0.0 && value < goal ? " *" : "");
        });
    }
    out << "Summary: GB/s of each dualrt variant over the native pinned stream's, host clock "
           "(* below its target: "
        << fixed(pinned_target, 2) << " pinned, " << fixed(staged_target, 2)
        << " pageable where staged)\n";
    table.print(out);
}

const Row* Report::find(const std::string& name, std::size_t block_bytes) const {
    for (const Row& row : rows_)
        if (row.name == name && row.block_bytes == block_bytes) return &row;
    return nullptr;
}

void Report::print_pipeline_summary(std::ostream& out) const {
    static const char* const hand_written = "pinned-view";
    static const char* const pipelines[] = {"pipeline", "pipeline-pairs", "pipeline-replay",
                                            "pipeline-auto"};
    const std::vector<std::size_t> sizes = block_sizes();
    bool any = false;
    for (const char* name : pipelines)
        for (std::size_t size : sizes) any = any || find(name, size) != nullptr;
    if (!any) return;

    std::vector<std::string> header = {"Pipeline / " + std::string(hand_written)};
    for (std::size_t size : sizes) header.push_back(format_bytes(size));
    Table table(header);
    for (const char* name : pipelines) {
        std::vector<std::string> cells = {name};
        bool present = false;
        for (std::size_t size : sizes) {
            const Row* row = find(name, size);
            const Row* base = find(hand_written, size);
            present = present || row != nullptr;
            if (!row || !row->result.wrong.empty() || !base || gbps(*base) <= 0.0) {
                cells.push_back(row && !row->result.wrong.empty() ? "WRONG" : "");
                continue;
            }
            const double value = gbps(*row) / gbps(*base);
            cells.push_back(fixed(value, 2) + (value < pipeline_target ? " *" : ""));
        }
        if (present) table.add(std::move(cells));
    }
    out << "\nPipeline over the same stream hand-written on dualrt's queues (" << hand_written
        << ", two queues alternating blocks), GB/s ratio, host clock (* below "
        << fixed(pipeline_target, 2) << "; the ratios over native pinned are above)\n";
    table.print(out);

    // Auto ignores the block size: each of its rows is a fresh Pipeline, its first run untimed.
    const Row* best = nullptr;
    for (std::size_t size : sizes) {
        const Row* row = find("pipeline", size);
        if (row && row->result.wrong.empty() && (!best || gbps(*row) > gbps(*best))) best = row;
    }
    std::vector<double> auto_gbps, first_gbps;
    for (std::size_t size : sizes)
        if (const Row* row = find("pipeline-auto", size); row && row->result.wrong.empty()) {
            auto_gbps.push_back(gbps(*row));
            if (row->result.first_wall_ms > 0.0)
                first_gbps.push_back(3.0 * static_cast<double>(array_bytes_) /
                                     (row->result.first_wall_ms * 1e6));
        }
    if (auto_gbps.empty()) return;
    std::sort(auto_gbps.begin(), auto_gbps.end());
    std::sort(first_gbps.begin(), first_gbps.end());
    // The middle two's mean for an even count: the upper one overstated auto with two rows.
    const double median_auto = dualrt::bench::detail::median(auto_gbps);
    out << "pipeline-auto: " << fixed(median_auto, 2) << " GB/s (median of its " << auto_gbps.size()
        << " rows, " << fixed(auto_gbps.front(), 2) << " to " << fixed(auto_gbps.back(), 2) << ")";
    if (!first_gbps.empty())
        out << "; a fresh Pipeline's first run "
            << fixed(dualrt::bench::detail::median(first_gbps), 2)
            << " GB/s";
    out << "\n";
    if (best) {
        const double value = median_auto / gbps(*best);
        out << "pipeline-auto / the best fixed chunk size of pipeline (" << fixed(gbps(*best), 2)
            << " GB/s at " << format_bytes(best->block_bytes) << "): " << fixed(value, 3)
            << (value >= auto_target ? " (target " : " * (target ") << fixed(auto_target, 2)
            << (value >= auto_target ? " met)" : " NOT met)") << "\n";
    }
}

bool Report::all_verified() const {
    return std::all_of(rows_.begin(), rows_.end(),
                       [](const Row& row) { return row.result.wrong.empty(); });
}

}  // namespace dualrt::samples::stream
