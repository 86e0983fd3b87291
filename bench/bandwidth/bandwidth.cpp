// bandwidth: copy bandwidth of dualrt beside plain CUDA / plain OpenCL on the selected device, in
// one run: host to device, device to host, both at once and device to device, from pageable and
// pinned host memory. Every figure is the median of event-timed copies after a warm-up, and every
// kind of copy is checked byte for byte first. Ratios are dualrt / native (above 1: faster).
#include "options.hpp"
#include "csv.hpp"
#include "cross_device.hpp"
#include "host_limit.hpp"
#include "library_copy.hpp"
#include "native_baseline.hpp"
#include "native_common.hpp"
#include "progress.hpp"
#include "table.hpp"

#ifdef DUALRT_BANDWIDTH_ZERO_COPY
#include "zero_copy.hpp"
#endif

#include <dualrt/dualrt.hpp>

#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace {

using dualrt::bench::Direction;
using dualrt::bench::HostMemory;
namespace bw = dualrt::samples::bandwidth;
using dualrt::samples::fixed;
using dualrt::samples::format_bytes;

#ifdef DUALRT_BANDWIDTH_ZERO_COPY
constexpr bool zero_copy_built = true;
#else
constexpr bool zero_copy_built = false;
#endif

// One row of the comparison: which copy, and the ratio dualrt should reach (none: 0).
struct Case {
    Direction direction;
    HostMemory host;
    double target;
    const char* what;  // what the ratio means
};

// Pageable: dualrt stages through its pinned pool, against the driver's own pageable path.
const Case main_cases[] = {
    {Direction::h2d, HostMemory::pageable, 3.0, "staged vs driver pageable"},
    {Direction::d2h, HostMemory::pageable, 2.0, "staged vs driver pageable"},
    {Direction::h2d, HostMemory::pinned, 0.98, "pinned vs pinned"},
    {Direction::d2h, HostMemory::pinned, 0.98, "pinned vs pinned"},
    {Direction::both, HostMemory::pinned, 0.97, "both at once, pinned"},
    {Direction::both, HostMemory::pageable, 0.0, "both at once, pageable"},
    {Direction::d2d, HostMemory::pinned, 0.0, "device to device"},
};

struct Context {
    dualrt::Device device;
    bw::LibraryCopies library;
    std::unique_ptr<dualrt::bench::NativeBaseline> native;
    int repetitions;
    dualrt::samples::CsvWriter csv;
    std::vector<std::string> notes;  // rows whose events disagree with the host clock
};

// A row whose host-clock time exceeds its event span by this factor and this many ms gets a
// note: the events probably missed host-side work (a start event stamped late, say), so the event
// figure flatters it. The margin keeps out small copies, where enqueue and wait overheads of tens
// of microseconds make up the difference.
constexpr double note_wall_factor = 1.5;
constexpr double note_wall_margin_ms = 0.25;

const std::vector<std::string> table_header = {
    "direction", "host memory", "size", "dualrt GB/s", "native GB/s", "dualrt/native",
    "target", "dualrt GB/s (wall)", "compares"};
const std::vector<std::string> csv_header = {
    "table", "direction", "host_memory", "bytes", "dualrt_gbps", "native_gbps", "ratio", "target",
    "met", "dualrt_device_ms", "dualrt_wall_ms", "native_device_ms", "repetitions", "backend",
    "device"};

// What one row measured, GB/s.
struct Rates {
    double dualrt = 0.0;
    double native = 0.0;
};

// Measures one case on both sides and adds its row to the table and the CSV.
Rates run_case(Context& ctx, dualrt::samples::Table& table, const char* table_name,
              const Case& c, std::size_t bytes) {
    const bw::CopyTiming library =
        ctx.library.measure(c.direction, c.host, bytes, ctx.repetitions);
    const double native_ms = ctx.native->copy_ms(c.direction, c.host, bytes, ctx.repetitions);
    const double library_gbps = bw::gb_per_s(c.direction, bytes, library.device_ms);
    const double native_gbps = bw::gb_per_s(c.direction, bytes, native_ms);
    const double ratio = native_gbps > 0.0 ? library_gbps / native_gbps : 0.0;
    const bool device_only = c.direction == Direction::d2d;
    const std::string host = device_only ? "-" : bw::to_string(c.host);
    const bool has_target = c.target > 0.0;
    const std::string met = has_target ? (ratio >= c.target ? "yes" : "no") : "";
    const std::string target =
        has_target ? ">= " + fixed(c.target, 2) + (met == "yes" ? " met" : " NOT met") : "-";
    table.add({bw::to_string(c.direction), host, format_bytes(bytes), fixed(library_gbps, 2),
               fixed(native_gbps, 2), fixed(ratio, 3), target,
               fixed(bw::gb_per_s(c.direction, bytes, library.wall_ms), 2), c.what});
    if (library.wall_ms > note_wall_factor * library.device_ms &&
        library.wall_ms - library.device_ms > note_wall_margin_ms)
        ctx.notes.push_back(std::string(bw::to_string(c.direction)) + " " + host + " " +
                            format_bytes(bytes) + ": dualrt's host clock says " +
                            fixed(library.wall_ms, 3) + " ms, its events " +
                            fixed(library.device_ms, 3) + " ms");
    ctx.csv.row({table_name, bw::to_string(c.direction), host, std::to_string(bytes),
                 fixed(library_gbps, 3), fixed(native_gbps, 3), fixed(ratio, 4),
                 has_target ? fixed(c.target, 2) : "", met, fixed(library.device_ms, 4),
                 fixed(library.wall_ms, 4), fixed(native_ms, 4), std::to_string(ctx.repetitions),
                 dualrt::to_string(ctx.device.backend()), ctx.device.name()});
    return Rates{library_gbps, native_gbps};
}

// The sweep's rates by size, host memory and direction.
using SweepRates = std::map<std::tuple<std::size_t, HostMemory, Direction>, Rates>;

const std::vector<std::string> limit_header = {
    "direction", "size", "staged GB/s", "host limit GB/s", "threads", "staged/limit",
    "beside DMA GB/s", "staged/beside", "relay GB/s", "relay threads", "staged/relay",
    "pinned GB/s", "staged/pinned", "driver pageable GB/s", "staged/driver"};

// The staged copies of the sweep against what bounds them, all measured in this run: the host's
// best memcpy between pageable and pinned memory, alone, beside a DMA and relaying with one
// (HostCopyLimit), dualrt's pinned copy of the same size (the DMA alone), and the driver's own
// pageable path (the native baseline's).
void print_host_limit(Context& ctx, const SweepRates& rates, const std::vector<std::size_t>& sizes,
                      dualrt::samples::Progress& progress) {
    bw::HostCopyLimit limit(ctx.device, sizes.back());
    dualrt::samples::Table table(limit_header);
    for (std::size_t size : sizes)
        for (Direction direction : {Direction::h2d, Direction::d2h}) {
            progress.step("host limit: " + std::string(bw::to_string(direction)) + ", " +
                          format_bytes(size));
            const bw::HostCopyRate host = limit.measure(direction, size, ctx.repetitions);
            const Rates staged = rates.at({size, HostMemory::pageable, direction});
            const Rates pinned = rates.at({size, HostMemory::pinned, direction});
            const auto share = [](double part, double whole) {
                return whole > 0.0 ? fixed(part / whole, 3) : std::string("-");
            };
            table.add({bw::to_string(direction), format_bytes(size), fixed(staged.dualrt, 2),
                       fixed(host.gb_per_s, 2), std::to_string(host.threads),
                       share(staged.dualrt, host.gb_per_s), fixed(host.beside_dma_gb_per_s, 2),
                       share(staged.dualrt, host.beside_dma_gb_per_s),
                       fixed(host.relay_gb_per_s, 2),
                       std::to_string(host.relay_threads) +
                           (host.relay_method == bw::HostCopyMethod::streaming ? " streamed"
                                                                               : " memcpy"),
                       share(staged.dualrt, host.relay_gb_per_s), fixed(pinned.dualrt, 2),
                       share(staged.dualrt, pinned.dualrt), fixed(staged.native, 2),
                       share(staged.dualrt, staged.native)});
            for (const auto& [table_name, limit_rate] :
                 {std::pair{"host_limit", host.gb_per_s},
                  std::pair{"host_limit_beside_dma", host.beside_dma_gb_per_s},
                  std::pair{"host_limit_relay", host.relay_gb_per_s}})
                ctx.csv.row({table_name, bw::to_string(direction), "pageable",
                             std::to_string(size), fixed(staged.dualrt, 3), fixed(limit_rate, 3),
                             limit_rate > 0.0 ? fixed(staged.dualrt / limit_rate, 4) : "", "", "",
                             "", "", "", std::to_string(ctx.repetitions),
                             dualrt::to_string(ctx.device.backend()), ctx.device.name()});
        }
    progress.clear();
    std::cout << "\nStaged copies against the host's limit (host limit: the best of "
              << bw::HostCopyLimit::thread_counts().size()
              << " thread counts memcpying between pageable and pinned memory, median of "
              << ctx.repetitions
              << "; beside DMA: that memcpy while the DMA moves as many bytes the same way, "
                 "both from start to end; relay: the host copying into (or out of) one pinned "
                 "buffer while the DMA moves the other, which the host filled (or the DMA "
                 "filled) the round before, the best of memcpy and streaming stores: the pace of "
                 "a staged copy's steady state; pinned: dualrt's pinned copy of the same size)\n";
    table.print(std::cout);
}

// 64 KiB, 256 KiB, ... up to `largest` (x4 steps); just `largest` when it is below 64 KiB.
std::vector<std::size_t> sweep_sizes(std::size_t largest) {
    std::vector<std::size_t> sizes;
    for (std::size_t size = 64 * 1024; size <= largest; size *= 4) sizes.push_back(size);
    if (sizes.empty()) sizes.push_back(largest);
    return sizes;
}

void print_staging(const dualrt::Device& device) {
    const dualrt::StagingStats s = device.staging_stats();
    std::cout << "\nStaging pool after the pageable copies: limit " << format_bytes(s.limit_bytes)
              << ", chunk " << format_bytes(s.chunk_bytes) << ", pinned now "
              << format_bytes(s.pinned_bytes) << " (peak " << format_bytes(s.peak_pinned_bytes)
              << ") in " << s.buffers << " buffers; " << s.hits << " hits, " << s.misses
              << " misses; fallbacks: " << s.smaller_fallbacks << " smaller, "
              << s.pageable_fallbacks << " to the driver's pageable path; " << s.staged_copies
              << " staged copies moved " << format_bytes(s.staged_bytes) << "\n";
}

#ifdef DUALRT_BANDWIDTH_ZERO_COPY
// The zero-copy table has its own columns, so its CSV rows go to a file of their own beside
// --csv's: results.csv -> results.zero_copy.csv.
void run_zero_copy(const Context& ctx, std::size_t bytes, const std::string& csv_path,
                   dualrt::samples::Progress& progress) {
    // zero_copy.hpp may declare its functions globally or in this program's namespace.
    using namespace dualrt::samples::bandwidth;
    dualrt::samples::Table table(zero_copy_header());
    const auto rows = zero_copy_rows(ctx.device, bytes, ctx.repetitions);
    progress.clear();
    for (const auto& row : rows) table.add(row);
    std::cout << "\nZero-copy (mapped host memory)\n";
    table.print(std::cout);
    if (csv_path.empty()) return;
    const auto dot = csv_path.rfind('.');
    const auto slash = csv_path.rfind('/');
    const bool has_extension =
        dot != std::string::npos && (slash == std::string::npos || dot > slash);
    const std::string path = has_extension
                                 ? csv_path.substr(0, dot) + ".zero_copy" + csv_path.substr(dot)
                                 : csv_path + ".zero_copy";
    dualrt::samples::CsvWriter csv(path, zero_copy_header());
    for (const auto& row : rows) csv.row(row);
    std::cout << "zero-copy rows written to " << path << "\n";
}
#endif

int run(const dualrt::samples::Args& args) {
    const std::size_t bytes = args.bytes("size");
    dualrt::Device device = dualrt::select(args.selection());
    const auto& info = device.info();
    auto native = dualrt::bench::load_native_baseline(device);
    dualrt::samples::CsvWriter csv;
    if (!args.csv_path().empty()) csv = dualrt::samples::CsvWriter(args.csv_path(), csv_header);
    Context ctx{device, bw::LibraryCopies(device), std::move(native),
                static_cast<int>(args.integer("repetitions")), std::move(csv), {}};

    std::cout << "dualrt " << dualrt::version_string() << " bandwidth on "
              << dualrt::to_string(info.backend) << " device " << info.index << " '" << info.name
              << "' (" << info.platform << ", driver " << info.driver_version << ")\n"
              << "native baseline: " << ctx.native->describe() << "\n"
              << "median of " << ctx.repetitions << " event-timed copies after "
              << dualrt::bench::detail::warmup_runs << " warm-up ones; GB/s = 10^9 bytes/s; "
              << "H2D+D2H and D2D count the bytes of both directions; every copy checked byte for "
              << "byte first; (wall): host clock from enqueue to completion, a cross-check of the "
              << "events\n\n";

    // One step per measured row: the main table, the sweep's (sizes x pageable/pinned x H2D/D2H)
    // and the zero-copy table as one.
    const auto sizes = sweep_sizes(bytes);
    const bool measure_zero_copy = zero_copy_built && args.flag("zero-copy");
    dualrt::samples::Progress progress(
        args.progress_mode(), std::size(main_cases) + (args.flag("sweep") ? 6 * sizes.size() : 0) +
                                  (measure_zero_copy ? 1 : 0));
    const auto step = [&](const char* table_name, const Case& c, std::size_t size) {
        const std::string host =
            c.direction == Direction::d2d ? "" : std::string(" ") + bw::to_string(c.host);
        progress.step(std::string(table_name) + ": " + bw::to_string(c.direction) + host + ", " +
                      format_bytes(size));
    };

    dualrt::samples::Table table(table_header);
    for (const Case& c : main_cases) {
        step("main", c, bytes);
        run_case(ctx, table, "main", c, bytes);
    }
    progress.clear();
    table.print(std::cout);

    if (args.flag("sweep")) {
        dualrt::samples::Table sweep(table_header);
        SweepRates rates;
        for (std::size_t size : sizes)
            for (HostMemory host : {HostMemory::pageable, HostMemory::pinned})
                for (Direction direction : {Direction::h2d, Direction::d2h}) {
                    const Case c{direction, host, 0.0, "size sweep"};
                    step("size sweep", c, size);
                    rates[{size, host, direction}] = run_case(ctx, sweep, "sweep", c, size);
                }
        progress.clear();
        std::cout << "\nSize sweep\n";
        sweep.print(std::cout);
        print_host_limit(ctx, rates, sizes, progress);
    }

    if (!ctx.notes.empty()) {
        std::cout << "\nNote: for these rows the events time much less than the host clock, so "
                     "they may miss host-side work and overstate dualrt's figure:\n";
        for (const auto& note : ctx.notes) std::cout << "  " << note << "\n";
    }
    print_staging(device);
    if (args.flag("cross")) {
        progress.clear();
        bw::print_cross_device(device, *ctx.native, bytes, ctx.repetitions, std::cout);
        bw::print_shared_memory(device, bytes, ctx.repetitions, std::cout);
    }
#ifdef DUALRT_BANDWIDTH_ZERO_COPY
    if (measure_zero_copy) {
        progress.step("zero-copy, " + format_bytes(bytes));
        run_zero_copy(ctx, bytes, args.csv_path(), progress);
    }
#endif
    if (ctx.csv.enabled()) std::cout << "rows written to " << ctx.csv.path() << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    dualrt::samples::Args args(
        "bandwidth",
        "Copy bandwidth of dualrt beside plain CUDA / plain OpenCL on one device: host to device,\n"
        "device to host, both at once and device to device, from pageable and pinned memory.");
    args.add_bytes("size", "BYTES", "bytes per copy (K, M, G suffixes)", "256M");
    args.add_integer("repetitions", "N", "timed copies per figure, after 2 warm-up copies", 20, 1,
                     100000);
    args.add_flag("sweep",
                  "also H2D and D2H, pageable and pinned, from 64 KiB up to --size in x4 steps, "
                  "and the staged copies against the host's own memcpy limit at each size");
    args.add_flag("cross", "also copies between this device and every other one present "
                           "(peer or staged), beside pinned H2D and D2H, and saxpy on memory "
                           "shared with the other device of the same GPU (alloc_shared)");
    args.add_flag("zero-copy", zero_copy_built
                                   ? "also measure zero-copy access to mapped host memory"
                                   : "zero-copy measurement (not in this build)");
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    if (args.flag("zero-copy") && !zero_copy_built) {
        std::cerr << "bandwidth: --zero-copy: this build has no zero-copy measurement "
                     "(bench/bandwidth/zero_copy.cpp was not there at configure time)\n\n"
                  << args.usage();
        return 2;
    }
    try {
        return run(args);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
