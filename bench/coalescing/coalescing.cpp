// coalescing: what the access pattern of a copy costs, on every backend of one GPU (the CUDA Best
// Practices Guide's offsetCopy and strideCopy experiments):
//   offset sweep   dst[i + v] = src[i + v] for v = 0..32: a warp's accesses, misaligned by v
//                  floats, straddle one more memory segment; shown as a share of offset 0
//   stride sweep   dst[i * v] = src[i * v] for v = 1..32: a warp's 32 floats spread over ever
//                  more segments, each fetched whole for one float; shown as a share of stride 1
// Rate: the effective bandwidth, 2 * n * 4 bytes (n floats read and written) per second,
// whatever the hardware moves. Every run's output is checked; a mismatch makes the exit code 1.
#include "ladder.hpp"
#include "sweep.hpp"

#include <dualrt/dualrt.hpp>

#include <cstdint>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace samples = dualrt::samples;
namespace coalescing = dualrt::samples::coalescing;

int run(const samples::Args& args) {
    const std::size_t n = args.bytes("size") / sizeof(float);
    const std::string& which = args.text("sweep");
    // The kernels take n as a uint.
    if (n == 0 || n > std::numeric_limits<std::uint32_t>::max()) {
        std::cerr << "coalescing: bad value for --size: "
                  << samples::format_bytes(args.bytes("size"))
                  << " is not from 4 bytes to 16 GiB\n\n"
                  << args.usage();
        return 2;
    }
    if (which != "offset" && which != "stride" && which != "both") {
        std::cerr << "coalescing: bad value for --sweep: '" << which
                  << "' is not offset, stride or both\n\n"
                  << args.usage();
        return 2;
    }
    std::vector<coalescing::Sweep> sweeps;
    if (which != "stride") sweeps.push_back(coalescing::offset_sweep);
    if (which != "offset") sweeps.push_back(coalescing::stride_sweep);

    const auto devices = samples::ladder_devices(args, std::cerr);
    std::cout << "coalescing: copies of n = " << n << " floats ("
              << samples::format_bytes(n * sizeof(float)) << "), work-groups of 256; median of "
              << samples::repetitions(args) << " runs after " << samples::warmup_runs(args)
              << " warm-up; GB/s = 2 * n * 4 bytes / time\n";
    for (const auto& device : devices) {
        const auto& info = device.info();
        std::cout << "  " << dualrt::to_string(info.backend) << " device " << info.index << " '"
                  << info.name << "' (" << info.platform << ")\n";
    }

    samples::CsvWriter csv = samples::open_ladder_csv(args);
    std::size_t steps = 0;
    for (const auto& sweep : sweeps) steps += (sweep.last - sweep.first + 1) * devices.size();
    samples::Progress progress(args.progress_mode(), steps);
    bool all_verified = true;
    for (const auto& sweep : sweeps) {
        const auto report = coalescing::run_sweep(sweep, n, devices, args, progress);
        std::cout << "\n"
                  << (sweep.pattern == coalescing::Pattern::offset
                          ? "offset sweep: dst[i + offset] = src[i + offset]"
                          : "stride sweep: dst[i * stride] = src[i * stride]")
                  << "\n";
        report.print(std::cout);
        report.write(csv);
        all_verified = all_verified && report.all_verified();
    }
    return samples::finish_ladder("coalescing", csv, all_verified);
}

}  // namespace

int main(int argc, char** argv) {
    samples::Args args(
        "coalescing",
        "Copy bandwidth against the access pattern, on every backend of one GPU: an offset sweep\n"
        "(offset 0..32 floats) and a stride sweep (stride 1..32 floats). Every output is checked.");
    samples::add_timing_options(args);
    args.add_bytes("size", "BYTES",
                   "bytes each copy moves, n = BYTES / 4 floats (the stride sweep's buffers are "
                   "32 times that)",
                   "64M");
    args.add_text("sweep", "WHICH", "offset, stride or both", "both");
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    try {
        return run(args);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
