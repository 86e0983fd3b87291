// The stream benchmark's results: one row per variant (and per native baseline) and block size,
// printed as one table, written to the CSV as they come, and summed up as a matrix of
// dualrt / native pinned by variant and block size.
#pragma once

#include "csv.hpp"
#include "stream_bench.hpp"

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace dualrt::samples::stream {

// The targets, as ratios of GB/s (host clock) over the native pinned stream's.
inline constexpr double pinned_target = 0.95;  // dualrt's pinned memory, however it is held
inline constexpr double staged_target = 0.80;  // pageable memory, where dualrt stages it
// Pipeline rows over the hand-written schedule on dualrt's queues (the pinned-view
// variant) at the same block size, and Pipeline auto over the best fixed chunk size.
inline constexpr double pipeline_target = 0.95;
inline constexpr double auto_target = 1.00;

struct Row {
    std::string name;  // the variant's, or "native pinned" / "native pageable"
    bool native = false;
    HostMemory memory = HostMemory::pinned;
    std::size_t block_bytes = 0;
    std::size_t blocks = 0;
    Measurement result;
};

class Report {
public:
    // `min_staged_bytes`: dualrt stages pageable copies of this size and more both ways
    // (StagingStats).
    Report(std::size_t array_bytes, std::size_t min_staged_bytes, int repetitions,
           std::string backend, std::string device, CsvWriter csv);

    // Adds a row and writes it to the CSV. A block size's native rows come before its variants,
    // whose ratios they are the denominators of.
    void add(Row row);

    void print(std::ostream& out) const;          // every row
    void print_summary(std::ostream& out) const;  // the ratio matrix
    // Pipeline rows beside the hand-written schedule, and auto beside the best fixed chunk
    // size; nothing when no Pipeline variant ran.
    void print_pipeline_summary(std::ostream& out) const;
    bool all_verified() const;
    const CsvWriter& csv() const { return csv_; }

    static const std::vector<std::string>& csv_header();

private:
    // 10^9 bytes per second over the bus: a, b up and c down, on the host clock or the events.
    double gbps(const Row& row) const;
    double device_gbps(const Row& row) const;
    // Row's GB/s over the native row of `memory` at its block size (0 when there is none).
    double ratio(const Row& row, HostMemory memory) const;
    double target(const Row& row) const;  // on ratio(row, pinned); 0: none
    std::string target_text(const Row& row) const;
    std::vector<std::size_t> block_sizes() const;  // in the order measured
    const Row* find(const std::string& name, std::size_t block_bytes) const;  // null: none

    std::size_t array_bytes_;
    std::size_t min_staged_bytes_;
    int repetitions_;
    std::string backend_, device_;
    CsvWriter csv_;
    std::vector<Row> rows_;
};

}  // namespace dualrt::samples::stream
