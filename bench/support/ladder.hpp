// What the kernel-ladder programs (reduce, transpose, matmul, coalescing, occupancy) share: the
// devices a ladder runs on (one per backend, so CUDA and OpenCL rungs land in one table), how a
// rung is timed (device events, warm-up, median), and the table and CSV every ladder prints: per
// rung and backend the time, the rate, the rate as a share of the run's references (a copy
// kernel, a vendor library) and the OpenCL/CUDA time ratio.
#pragma once

#include "options.hpp"
#include "csv.hpp"

#include <dualrt/dualrt.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace dualrt::samples {

// The devices to run on: one per backend. `--backend auto` (the default) means every backend
// that is available; `--device` picks the device within each, so `--device nvidia` selects both
// the CUDA and the OpenCL view of one NVIDIA GPU. A backend that is unavailable or has no such
// device is reported on `notes` and skipped; when no backend is left, the last error is thrown.
std::vector<Device> ladder_devices(const Args& args, std::ostream& notes);

struct Timing {
    double median_ms = 0.0;
    double min_ms = 0.0;
    double max_ms = 0.0;
    int repetitions = 0;
};

// Runs `enqueue` `warmup` times untimed, then `repetitions` times, each between two events
// recorded on `queue`; returns the median, fastest and slowest device time of one run.
Timing time_on_device(Queue& queue, int warmup, int repetitions,
                      const std::function<void()>& enqueue);

// The shared command-line options of a ladder: --warmup and --repetitions.
void add_timing_options(Args& args);
int warmup_runs(const Args& args);
int repetitions(const Args& args);

// One measured row: a rung of a ladder on one device, or a reference (copy kernel, CUB, cuBLAS).
struct RungResult {
    std::string rung;     // "3 sequential addressing", "copy", "CUB DeviceReduce::Sum"
    Backend backend = Backend::cuda;
    std::string device;   // the device's name: rows of one GPU seen through both backends match
    Timing timing;
    double work = 0.0;    // per run: bytes moved (rate in GB/s) or flops (GFLOP/s), see the unit
    bool verified = false;  // the output matched the CPU reference
    std::string note;     // why not verified, or what the row is ("vendor library")

    double rate() const;  // work per second, in units of 1e9
};

class LadderReport {
public:
    // `family` names the ladder in the CSV ("reduce f32"); `unit` is "GB/s" or "GFLOP/s".
    LadderReport(std::string family, std::string unit);

    void add(RungResult row);

    // Adds a "% of <column>" column (two at most, which the CSV has room for): each row's rate
    // as a share of the rate of the row whose rung is `rung_name` on the same backend and device,
    // or failing that on another backend of the same device (a vendor library exists on CUDA
    // only, and OpenCL rows compare with it too).
    void add_reference(const std::string& column, const std::string& rung_name);

    const std::vector<RungResult>& rows() const { return rows_; }
    // The row of `rung` on `backend` (nullptr if there is none).
    const RungResult* find(const std::string& rung, Backend backend) const;
    // A row's rate over its reference's (0 when there is none).
    double share_of(const RungResult& row, const std::string& reference_rung) const;
    // OpenCL rows: their time over the CUDA row of the same rung and device (0 when none).
    double opencl_over_cuda(const RungResult& row) const;
    bool all_verified() const;

    void print(std::ostream& out) const;
    // Appends every row to `csv`, whose header is csv_header(): the same for every ladder, so
    // one file can hold several families.
    void write(CsvWriter& csv) const;
    static std::vector<std::string> csv_header();
    static constexpr std::size_t max_references = 2;

private:
    struct Reference {
        std::string column, rung;
    };
    const RungResult* reference_for(const RungResult& row, const std::string& rung) const;

    std::string family_, unit_;
    std::vector<RungResult> rows_;
    std::vector<Reference> references_;
};

// The file named by --csv, opened with csv_header(); a writer that writes nothing without --csv.
CsvWriter open_ladder_csv(const Args& args);

// The end of a ladder program's run: says where the CSV rows went, and on stderr that some rows
// are wrong when `all_verified` is false. Returns the exit code: 0, or 1 when a row is wrong.
int finish_ladder(const std::string& sample, const CsvWriter& csv, bool all_verified);

}  // namespace dualrt::samples
