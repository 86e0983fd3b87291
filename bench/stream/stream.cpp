// stream: c = a + s * b over three large host arrays, streamed through two queues in blocks
// (block k on queue k % 2: upload a_k and b_k, the triad kernel, download c_k; the uploads of one
// queue overlap the downloads of the other), with the host memory held the way programs hold it:
// one HostBuffer per block, one per array copied through views or plain pointers, registered
// application memory, or plain std::vectors. Beside them the same stream hand-written in plain
// CUDA / plain OpenCL from pinned and from pageable memory, in the same run. GB/s counts the
// bytes over the bus (3 x the array) over the host-clock time from the first enqueue until both
// queues are done; every run's output is checked against the host. dualrt's variants run in
// turns, one run of each per round, so that the ratios between them (the Pipeline against the
// same schedule hand-written) compare runs that met the host in the same state.
#include "options.hpp"
#include "csv.hpp"
#include "native_baseline.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "stream_bench.hpp"
#include "variants.hpp"

#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace ss = dualrt::samples::stream;
using dualrt::samples::format_bytes;

constexpr std::size_t min_array_bytes = std::size_t{16} << 20;
constexpr std::size_t max_array_bytes = std::size_t{1} << 30;

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ','))
        if (!item.empty()) items.push_back(item);
    return items;
}

// The command line's choices, checked. A bad one throws std::invalid_argument, reported with
// the usage and exit code 2.
struct Plan {
    std::size_t array_bytes = 0;
    std::vector<std::size_t> block_bytes;
    std::vector<ss::Variant> variants;
};

Plan make_plan(const dualrt::samples::Args& args) {
    Plan plan;
    plan.array_bytes = args.bytes("size");
    if (plan.array_bytes < min_array_bytes || plan.array_bytes > max_array_bytes ||
        plan.array_bytes % sizeof(float) != 0)
        throw std::invalid_argument("--size must be a whole number of floats from " +
                                    format_bytes(min_array_bytes) + " to " +
                                    format_bytes(max_array_bytes) + ", not " +
                                    format_bytes(plan.array_bytes));
    for (const std::string& item : split(args.text("blocks"))) {
        const auto bytes = dualrt::samples::parse_bytes(item);
        if (!bytes || *bytes == 0 || *bytes % sizeof(float) != 0 || *bytes > plan.array_bytes)
            throw std::invalid_argument("--blocks: '" + item + "' is not a whole number of " +
                                        "floats up to the array size (" +
                                        format_bytes(plan.array_bytes) + ")");
        plan.block_bytes.push_back(*bytes);
    }
    if (plan.block_bytes.empty()) throw std::invalid_argument("--blocks names no block size");

    const std::string chosen = args.text("variants");
    if (chosen == "all") {
        plan.variants = ss::variants();
        return plan;
    }
    for (const std::string& name : split(chosen)) {
        bool found = false;
        for (const ss::Variant& variant : ss::variants())
            if (name == variant.name) {
                plan.variants.push_back(variant);
                found = true;
            }
        if (found) continue;
        std::string known;
        for (const ss::Variant& variant : ss::variants())
            known += (known.empty() ? "" : ", ") + std::string(variant.name);
        throw std::invalid_argument("--variants: unknown variant '" + name + "' (this build has " +
                                    known + ")");
    }
    return plan;
}

int run(const dualrt::samples::Args& args, const Plan& plan) {
    const int repetitions = static_cast<int>(args.integer("reps"));
    auto seed = static_cast<std::uint64_t>(args.integer("seed"));
    if (seed == 0) seed = std::random_device{}();

    dualrt::Device device = dualrt::select(args.selection());
    const auto& info = device.info();
    const auto native = dualrt::bench::load_native_baseline(device);
    // Opened before measuring, so that a bad path fails at once.
    dualrt::samples::CsvWriter csv;
    if (!args.csv_path().empty())
        csv = dualrt::samples::CsvWriter(args.csv_path(), ss::Report::csv_header());

    std::cout << "dualrt " << dualrt::version_string() << " stream on "
              << dualrt::to_string(info.backend) << " device " << info.index << " '" << info.name
              << "' (" << info.platform << ", driver " << info.driver_version << ")\n"
              << "native baseline: " << native->describe() << "\n"
              << "c = a + s*b, " << format_bytes(plan.array_bytes) << " per array, block k on "
              << "queue k % 2 (upload a_k, b_k; triad; download c_k); 1 warm-up run, then the "
              << "median of " << repetitions << " (dualrt's variants in turns, run for run; each "
              << "native stream on its own); GB/s = 3 x " << format_bytes(plan.array_bytes)
              << " / host time from the first enqueue until both queues are done (device GB/s: "
              << "the same over device events); enqueue: host time per block of the enqueue "
              << "loop; every run's c checked against the host (input seed " << seed << ")\n";
    for (const ss::Variant& variant : plan.variants)
        std::cout << "  " << variant.name << ": " << variant.holds << "\n";
    if (const auto depth = args.integer("pipeline-depth"); depth != 0)
        std::cout << "  (the Pipeline variants with depth " << depth
                  << ": PipelineOptions::depth)\n";
    std::cout << "\n";

    // A block is staged both ways from the larger of the two bounds.
    const dualrt::StagingStats staging = device.staging_stats();
    const std::size_t min_staged =
        std::max(staging.min_staged_upload_bytes, staging.min_staged_download_bytes);
    ss::Report report(plan.array_bytes, min_staged, repetitions, dualrt::to_string(info.backend),
                      info.name, std::move(csv));
    ss::StreamBench bench(device, plan.array_bytes / sizeof(float), repetitions, seed);
    bench.set_pipeline_depth(static_cast<std::size_t>(args.integer("pipeline-depth")));
    dualrt::samples::Progress progress(args.progress_mode(), plan.block_bytes.size() * 3);
    for (const std::size_t block_bytes : plan.block_bytes) {
        bench.set_block(block_bytes / sizeof(float));
        const auto add = [&](const std::string& name, bool is_native, ss::HostMemory memory,
                             ss::Measurement result) {
            ss::Row row;
            row.name = name;
            row.native = is_native;
            row.memory = memory;
            row.block_bytes = block_bytes;
            row.blocks = bench.blocks().size();
            row.result = std::move(result);
            report.add(std::move(row));
        };
        for (const ss::HostMemory memory : {ss::HostMemory::pinned, ss::HostMemory::pageable}) {
            const std::string name =
                memory == ss::HostMemory::pinned ? "native pinned" : "native pageable";
            progress.step(format_bytes(block_bytes) + " blocks: " + name);
            add(name, true, memory, bench.measure_native(*native, memory));
        }
        progress.step(format_bytes(block_bytes) + " blocks: dualrt's variants in turns");
        std::vector<ss::PreparedStream> prepared;
        for (const ss::Variant& variant : plan.variants) prepared.push_back(variant.prepare(bench));
        std::vector<ss::Measurement> measured = bench.measure_in_turns(prepared);
        for (std::size_t i = 0; i < plan.variants.size(); ++i)
            add(plan.variants[i].name, false, plan.variants[i].memory, std::move(measured[i]));
    }
    progress.clear();

    report.print(std::cout);
    std::cout << "\n";
    report.print_summary(std::cout);
    report.print_pipeline_summary(std::cout);
    if (report.csv().enabled()) std::cout << "rows written to " << report.csv().path() << "\n";
    if (!report.all_verified()) {
        std::cerr << "stream: some variants computed a wrong c (rows marked WRONG)\n";
        return 1;
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    dualrt::samples::Args args(
        "stream",
        "c = a + s*b over large host arrays, streamed through two queues in blocks, with the\n"
        "host memory held in several ways, beside the same stream in plain CUDA / plain OpenCL.");
    args.add_bytes("size", "BYTES",
                   "bytes per array, 16M to 1G (each variant holds three arrays while they run "
                   "in turns)",
                   "256M");
    args.add_text("blocks", "LIST", "block sizes (bytes of each array per block)",
                  "64K,256K,1M,4M,16M");
    args.add_text("variants", "LIST", "the variants to measure, or all", "all");
    args.add_integer("reps", "N", "timed runs per figure (median), after one warm-up run", 5, 1,
                     1000);
    args.add_integer("seed", "N", "seed of the random inputs (0: a fresh one)", 0, 0,
                     0xffffffffLL);
    args.add_integer("pipeline-depth", "N",
                     "chunks in flight of the Pipeline variants (PipelineOptions::depth; with "
                     "lanes, their queues too; 0: the library's choice, 4 lanes, or 2 where the "
                     "timed stages show one engine busy most of a chunk's time)",
                     0, 0, 16);
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    Plan plan;
    try {
        plan = make_plan(args);
    } catch (const std::invalid_argument& e) {
        std::cerr << "stream: " << e.what() << "\n\n" << args.usage();
        return 2;
    }
    try {
        return run(args, plan);
    } catch (const std::exception& e) {  // dualrt::Error is one
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
