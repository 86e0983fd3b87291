// reduce: the sum-reduction ladder (Harris, "Optimizing Parallel Reduction in CUDA"; Kirk & Hwu)
// over fp32 and int32, every rung on every backend of the selected GPU, beside a plain copy
// kernel of the same input (the bandwidth yardstick) and, on CUDA, CUB's DeviceReduce::Sum.
// A rung's time covers all its passes down to one value; its rate is the bytes it reads (n
// elements) per second. Every result is checked against the CPU reference: exactly for int32,
// within the rounding bound of the rung's order of additions for fp32. Exit code 1 when any
// row is wrong.
#include "ladder.hpp"
#include "progress.hpp"
#include "reduce_measure.hpp"
#include "reduce_rungs.hpp"

#include <dualrt/dualrt.hpp>

#include <cstdint>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace reduce = dualrt::samples::reduce;
using dualrt::samples::LadderReport;
using dualrt::samples::RungResult;

struct DeviceRun {
    dualrt::Device device;
    std::unique_ptr<dualrt::bench::VendorBaseline> vendor;  // CUB, CUDA devices only
    std::string no_vendor;                                  // why not, on a CUDA device
};

void print_header(const dualrt::samples::Args& args, const std::vector<DeviceRun>& runs,
                  std::size_t n, bool f32, bool i32, std::uint64_t seed,
                  std::size_t groups_per_unit) {
    std::cout << "dualrt " << dualrt::version_string() << " reduce ladder: sum of " << n
              << " elements (" << dualrt::samples::format_bytes(n * 4) << " per type), types"
              << (f32 ? " f32" : "") << (i32 ? " i32" : "") << "\n"
              << "warm-up " << dualrt::samples::warmup_runs(args) << ", "
              << dualrt::samples::repetitions(args)
              << " timed runs per row (median of device times, all passes of a rung included); "
                 "rate = bytes read / time, copy: bytes read + written\n";
    for (const auto& run : runs) {
        const auto& info = run.device.info();
        std::cout << "  " << dualrt::to_string(info.backend) << " device " << info.index << " '"
                  << info.name << "' (" << info.platform << ", driver " << info.driver_version
                  << "), " << info.compute_units << " compute units\n";
    }
    std::cout << "work-groups of " << reduce::group_size
              << "; rungs 1-5 repeat over their partial sums until one is left; rung 6: up to "
              << groups_per_unit << " work-groups per compute unit, then one over their sums\n"
              << "inputs: f32 multiples of 2^-24 in [0, 1), i32 small enough that no sum "
                 "overflows; seed "
              << seed << "\n";
}

template <typename T>
void measure_type(const std::vector<DeviceRun>& runs, const reduce::Input<T>& input,
                  const std::vector<RungResult>& copies, const reduce::MeasureOptions& options,
                  LadderReport& report) {
    for (const auto& run : runs) {
        for (const auto& copy : copies)
            if (copy.backend == run.device.backend()) report.add(copy);
        for (auto& row : reduce::measure_rungs(run.device, input, options))
            report.add(std::move(row));
        if (run.vendor)
            report.add(reduce::measure_vendor(*run.vendor, run.device, input, options));
    }
}

int run(const dualrt::samples::Args& args) {
    const std::string type = args.text("type");
    if (type != "f32" && type != "i32" && type != "both") {
        std::cerr << "bad value for --type: '" << type << "' is not f32, i32 or both\n"
                  << args.usage();
        return 2;
    }
    const bool f32 = type != "i32", i32 = type != "f32";
    const auto n = static_cast<std::size_t>(args.integer("elements"));
    std::uint64_t seed = static_cast<std::uint64_t>(args.integer("seed"));
    if (seed == 0) seed = std::random_device{}();

    std::vector<DeviceRun> runs;
    for (auto& device : dualrt::samples::ladder_devices(args, std::cerr)) {
        DeviceRun run{device, nullptr, ""};
        if (device.backend() == dualrt::Backend::cuda)
            run.vendor = dualrt::bench::load_vendor_baseline(device, run.no_vendor);
        runs.push_back(std::move(run));
    }

    reduce::MeasureOptions options;
    options.warmup = dualrt::samples::warmup_runs(args);
    options.repetitions = dualrt::samples::repetitions(args);
    options.groups_per_unit = static_cast<std::size_t>(args.integer("groups-per-unit"));
    print_header(args, runs, n, f32, i32, seed, options.groups_per_unit);
    for (const auto& run : runs) {
        if (run.vendor)
            std::cout << "vendor: " << run.vendor->describe() << "\n";
        else if (run.device.backend() == dualrt::Backend::cuda)
            std::cout << "vendor: none, no CUB rows: " << run.no_vendor << "\n";
    }

    dualrt::samples::CsvWriter csv = dualrt::samples::open_ladder_csv(args);
    std::size_t steps = 0;
    for (const auto& run : runs)
        steps += 1 + (f32 + i32) * (reduce::rungs().size() + (run.vendor ? 1 : 0));
    dualrt::samples::Progress progress(args.progress_mode(), steps);
    options.step = [&](const std::string& what) { progress.step(what); };

    // The copy rows, once per device: both types have 4-byte elements, so they share them (the
    // copy runs over the float input even when only int32 is measured).
    const reduce::Input<float> floats = reduce::float_input(n, seed);
    std::vector<RungResult> copies;
    for (const auto& run : runs) {
        RungResult row;
        std::string why_not;
        if (reduce::measure_copy(run.device, floats, options, row, why_not))
            copies.push_back(std::move(row));
        else
            std::cerr << "no copy row on " << dualrt::to_string(run.device.backend()) << ": "
                      << why_not << "\n";
    }

    std::vector<std::pair<std::string, LadderReport>> reports;  // title, rows
    if (f32) {
        reports.emplace_back("fp32", LadderReport("reduce f32", "GB/s"));
        measure_type(runs, floats, copies, options, reports.back().second);
    }
    if (i32) {
        reports.emplace_back("int32", LadderReport("reduce i32", "GB/s"));
        measure_type(runs, reduce::int_input(n, seed + 1), copies, options,
                     reports.back().second);
    }
    progress.clear();

    bool all_verified = true;
    for (auto& [title, report] : reports) {
        report.add_reference("copy", reduce::copy_rung);
        report.add_reference("CUB", reduce::vendor_rung);
        std::cout << "\n" << title << ":\n";
        report.print(std::cout);
        report.write(csv);
        all_verified = all_verified && report.all_verified();
    }
    return dualrt::samples::finish_ladder("reduce", csv, all_verified);
}

}  // namespace

int main(int argc, char** argv) {
    dualrt::samples::Args args(
        "reduce",
        "The sum-reduction ladder (Harris; Kirk & Hwu), fp32 and int32: six rungs from\n"
        "interleaved addressing to a grid-stride kernel with 16-byte loads, on every backend of\n"
        "the selected GPU, beside a copy kernel and CUB's DeviceReduce::Sum (CUDA).");
    args.add_integer("elements", "N", "elements to sum (default 2^27)", 134217728, 1,
                     4294967295LL);
    args.add_text("type", "TYPE", "f32, i32 or both", "both");
    args.add_integer("groups-per-unit", "N",
                     "rung 6: work-groups of 256 per compute unit in its first pass",
                     static_cast<long long>(reduce::default_groups_per_unit), 1, 64);
    args.add_integer("seed", "N", "seed of the inputs (0: a fresh one, printed)", 0, 0,
                     4294967295LL);
    dualrt::samples::add_timing_options(args);
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    try {
        return run(args);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
