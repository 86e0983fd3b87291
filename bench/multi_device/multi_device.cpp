// multi_device: the triad c = a + s * b streamed from host arrays through a Pipeline on each
// device alone, then on all of them (or the ones chosen) together, which deals the chunks to
// whichever device is ready first; the scaling against the fastest device alone, and beside each
// device the hand-written native stream of the same job (bench/: plain CUDA streams or OpenCL
// queues), in the same run; beside the devices together, the native streams on a split of the
// arrays fixed in proportion to each device's native rate alone, all at once (the hand-written
// way to use several devices). Every output is checked bit for bit against the host. Times are
// host wall-clock time of the whole job, host arrays to host array.
#include "options.hpp"
#include "csv.hpp"
#include "progress.hpp"
#include "table.hpp"
#include "triad_runs.hpp"

#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <optional>
#include <random>
#include <tuple>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using dualrt::samples::fixed;

std::string lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// One item of --devices: a position in `present`, or BACKEND:WHICH, the first device of that
// backend whose index is WHICH or whose name, vendor or platform contains it (any case), e.g.
// "cuda:0", "opencl:nvidia", "opencl:portable" (PoCL's platform). `present.size()` if none.
std::size_t find_device(const std::string& item, const std::vector<dualrt::Device>& present) {
    const auto digits = [](const std::string& text) {
        return !text.empty() && text.size() <= 6 &&
               text.find_first_not_of("0123456789") == std::string::npos;
    };
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos)
        return digits(item) ? std::min<std::size_t>(std::stoul(item), present.size())
                            : present.size();
    const std::string backend = lower(item.substr(0, colon)), which = lower(item.substr(colon + 1));
    for (std::size_t d = 0; d < present.size(); ++d) {
        const auto& info = present[d].info();
        if (lower(dualrt::to_string(info.backend)) != backend || which.empty()) continue;
        if (digits(which) ? std::stoul(which) == std::size_t(info.index)
                          : lower(info.name + " " + info.vendor + " " + info.platform)
                                    .find(which) != std::string::npos)
            return d;
    }
    return present.size();
}

// "all" -> every device; else the comma-separated items of find_device, each once.
std::vector<std::size_t> parse_devices(const std::string& text,
                                       const std::vector<dualrt::Device>& present) {
    std::vector<std::size_t> chosen;
    if (text == "all") {
        for (std::size_t d = 0; d < present.size(); ++d) chosen.push_back(d);
        return chosen;
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        const std::size_t d = find_device(item, present);
        if (d == present.size())
            throw std::invalid_argument(
                "--devices: '" + item + "' is not a device here; expected 'all', or positions "
                "in the list above (0 to " + std::to_string(present.size() - 1) + ") or "
                "BACKEND:INDEX or BACKEND:NAME-PART (e.g. opencl:portable), separated by commas");
        if (std::find(chosen.begin(), chosen.end(), d) != chosen.end())
            throw std::invalid_argument("--devices: '" + item + "' names device " +
                                        std::to_string(d) + " a second time");
        chosen.push_back(d);
        start = comma + 1;
    }
    return chosen;
}

std::string short_name(const dualrt::Device& device) {
    return std::string(dualrt::to_string(device.backend())) + " " +
           std::to_string(device.info().index);
}

}  // namespace

int main(int argc, char** argv) try {
    dualrt::samples::Args args(
        "multi_device",
        "The triad c = a + s*b streamed through a Pipeline on each device alone and on several "
        "together (chunks go to whichever device is ready first), with the scaling against the "
        "fastest device alone and the native stream of each device beside it. Devices come from "
        "every backend (--backend and --device play no part; see --devices).");
    args.add_bytes("size", "BYTES", "bytes per array (a, b and c)", "256M");
    args.add_text("host", "KIND", "host memory of the arrays: pageable or pinned", "pageable");
    args.add_text("devices", "LIST",
                  "'all', or devices by position in the list printed (0,2) or by backend and "
                  "index or name part (cuda:0,opencl:portable)",
                  "all");
    args.add_integer("chunks", "N", "chunks per run (0: automatic chunking)", 0, 0, 1 << 20);
    args.add_integer("repetitions", "N",
                     "timed runs per point (median); a Pipeline over several devices measures "
                     "each way twice in its first timed runs. Runs from pageable memory spread "
                     "by 20% or more, so a 2% comparison needs about 21",
                     21, 1, 1000);
    args.add_flag("no-native", "leave out the native baselines");
    args.add_flag("each-run", "also print every run's time, chunks and chunking (how each "
                              "Pipeline settles)");
    args.add_text("trace", "FILE", "write the together run's timeline (Chrome/Perfetto JSON)",
                  "");
    args.add_flag("every-chunk", "time every stage of every chunk (exact stage sums and a "
                                 "timeline of every chunk; the default times a sample)");
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    const std::string host = args.text("host");
    if (host != "pageable" && host != "pinned")
        throw std::invalid_argument("--host must be pageable or pinned, not '" + host + "'");
    const bool pinned = host == "pinned";
    const std::size_t bytes = args.bytes("size");
    if (bytes % sizeof(float) != 0 || bytes < (std::size_t{64} << 10))
        throw std::invalid_argument("--size must be a whole number of floats, at least 64 KiB; "
                                    "got " + std::to_string(bytes) + " bytes");
    const int repetitions = static_cast<int>(args.integer("repetitions"));
    const std::size_t chunks = static_cast<std::size_t>(args.integer("chunks"));

    const std::vector<dualrt::Device> present = dualrt::devices();
    if (present.empty()) throw std::runtime_error("no device found on any backend");
    std::cout << "devices:\n";
    for (std::size_t d = 0; d < present.size(); ++d)
        std::cout << "  " << d << ": " << short_name(present[d]) << " '" << present[d].name()
                  << "' (" << present[d].info().driver_version << ")\n";
    std::vector<dualrt::Device> devices;
    for (std::size_t d : parse_devices(args.text("devices"), present))
        devices.push_back(present[d]);
    const std::size_t n = bytes / sizeof(float);
    std::cout << "triad over " << dualrt::samples::format_bytes(bytes) << " per array, " << host
              << " host memory, "
              << (chunks == 0 ? std::string("automatic chunking")
                              : std::to_string(chunks) + " chunks")
              << ", median of " << repetitions << " runs after one untimed\n";

    const bool together = devices.size() > 1;
    const bool native = !args.flag("no-native");
    dualrt::samples::Progress progress(args.progress_mode(),
                                       1 + devices.size() * (native ? 2 : 1) + (together ? 1 : 0));
    progress.step("host reference");
    const auto data = dualrt::samples::random_triad(n, std::random_device{}());

    dualrt::PipelineOptions options;
    if (chunks > 0) options.chunking = dualrt::Chunking::count(chunks);
    if (args.flag("every-chunk")) options.timing = dualrt::PipelineTiming::every_chunk;
    // GB/s of the job's traffic: a and b up, c down.
    const auto rate = [&](double ms) { return ms > 0.0 ? 3.0 * double(bytes) / ms / 1e6 : 0.0; };
    dualrt::samples::Table table({"run", "chunks", "dualrt ms", "GB/s", "native ms",
                                  "native/dualrt", "x fastest alone"});
    dualrt::samples::CsvWriter csv;
    if (!args.csv_path().empty())
        csv = dualrt::samples::CsvWriter(
            args.csv_path(), {"run", "devices", "host", "bytes", "chunks", "dualrt_ms",
                              "native_ms", "native_over_dualrt", "over_fastest_alone"});
    struct Row {
        std::string name;
        std::size_t devices = 1, chunks = 0;
        double ms = 0.0, native_ms = 0.0;
        double fastest_alone_ms = 0.0;  // what "x fastest alone" compares with (0: the first pass)
    };
    std::vector<Row> rows;
    std::vector<std::string> native_missing;
    double fastest_alone = 0.0;
    std::string fastest_name;
    std::size_t fastest_index = 0;
    std::vector<std::pair<std::string, std::vector<std::string>>> each_run;  // --each-run

    for (const dualrt::Device& device : devices) {
        progress.step("dualrt on " + short_name(device));
        dualrt::Pipeline pipeline(device, options);
        const auto run = dualrt::samples::run_triad(pipeline, data, pinned, repetitions);
        Row row{short_name(device) + " alone", 1, run.report.chunks, run.host_ms, 0.0};
        if (args.flag("each-run")) each_run.push_back({row.name, run.each_run});
        if (native) {
            progress.step("native on " + short_name(device));
            std::string why;
            // The native stream's blocks are dualrt's largest chunk.
            row.native_ms = dualrt::samples::native_triad_ms(device, data, pinned,
                                                             run.report.chunk_elements,
                                                             repetitions, why);
            if (row.native_ms == 0.0) native_missing.push_back(short_name(device) + ": " + why);
        }
        if (fastest_alone == 0.0 || run.host_ms < fastest_alone) {
            fastest_alone = run.host_ms;
            fastest_name = short_name(device);
            fastest_index = rows.size();
        }
        rows.push_back(row);
    }
    dualrt::samples::TriadRun shared, between;
    if (together) {
        std::string names;
        for (const auto& device : devices)
            names += (names.empty() ? "" : " + ") + short_name(device);
        progress.step("dualrt on " + names + (native ? ", in turns with the native split" : ""));
        // The devices together take turns with a Pipeline of the fastest alone, run for run, and
        // with the native split, and are compared with them: measured one after the other, the
        // second could meet a host that the first left slower (triad_runs.hpp).
        dualrt::Pipeline alone(devices[fastest_index], options);
        dualrt::Pipeline pipeline(devices, options);
        std::optional<dualrt::samples::NativeSplit> split;
        if (native && native_missing.empty()) {
            // By hand: the arrays split once in proportion to each device's native rate alone.
            split.emplace();
            split->devices = devices;
            for (std::size_t d = 0; d < devices.size(); ++d)
                split->weights.push_back(rows[d].native_ms > 0.0 ? 1.0 / rows[d].native_ms : 0.0);
        }
        const dualrt::samples::TogetherRuns runs = dualrt::samples::run_together_in_turns(
            alone, pipeline, data, pinned, repetitions, split ? &*split : nullptr);
        between = runs.alone;
        shared = runs.together;
        Row turns{fastest_name + " alone, in turns", 1, between.report.chunks, between.host_ms,
                  0.0, between.host_ms};
        Row row{names, devices.size(), shared.report.chunks, shared.host_ms, runs.native_ms,
                between.host_ms};
        if (split && runs.native_ms == 0.0)
            native_missing.push_back(names + ": " + runs.native_why);
        if (args.flag("each-run")) {
            each_run.push_back({turns.name, between.each_run});
            each_run.push_back({names, shared.each_run});
        }
        rows.push_back(turns);
        rows.push_back(row);
    }
    progress.clear();

    for (const Row& row : rows) {
        const double reference = row.fastest_alone_ms > 0.0 ? row.fastest_alone_ms : fastest_alone;
        const double over = row.ms > 0.0 ? reference / row.ms : 0.0;
        table.add({row.name, std::to_string(row.chunks), fixed(row.ms, 3), fixed(rate(row.ms), 2),
                   row.native_ms > 0 ? fixed(row.native_ms, 3) : "-",
                   row.native_ms > 0 ? fixed(row.native_ms / row.ms, 3) : "-", fixed(over, 3)});
        csv.row({row.name, std::to_string(row.devices), host, std::to_string(bytes),
                 std::to_string(row.chunks), fixed(row.ms, 4), fixed(row.native_ms, 4),
                 row.native_ms > 0 ? fixed(row.native_ms / row.ms, 4) : "", fixed(over, 4)});
    }
    table.print(std::cout);
    if (native)
        std::cout << "native: the device's hand-written stream, blocks of dualrt's largest chunk; "
                     "for several devices, their streams side by side on a split of the arrays "
                     "fixed by their rates alone, all parts starting each run together (the "
                     "median run, to the slowest part's end)\n";
    if (together)
        std::cout << "the devices together are compared with the fastest alone in turns: a "
                     "Pipeline of it whose runs alternated with theirs"
                  << (native ? ", each pair of runs followed by a run of the native split" : "")
                  << "\n";
    for (const auto& missing : native_missing)
        std::cout << "native baseline unavailable for " << missing << "\n";
    for (const auto& [name, lines] : each_run) {
        std::cout << "\nevery run of " << name << ":\n";
        for (const auto& line : lines) std::cout << "  " << line << "\n";
    }
    if (together) {
        std::cout << "\ntogether (the median of " << shared.median_of << "):\n"
                  << shared.report.summary();
        std::cout << "measured: " << fixed(between.host_ms / shared.host_ms, 3)
                  << "x the fastest device alone (" << fastest_name << ", "
                  << fixed(between.host_ms, 3) << " ms in turns with the devices together, "
                  << "against " << fixed(shared.host_ms, 3) << " ms; "
                  << fixed(fastest_alone / shared.host_ms, 3) << "x against its "
                  << fixed(fastest_alone, 3) << " ms measured alone before)\n";
        if (!args.text("trace").empty()) {
            shared.report.timeline.write_chrome_json(args.text("trace"));
            std::cout << "trace: " << args.text("trace") << "\n";
        }
    }
    std::cout << "every output equals the host reference bit for bit\n";
    if (csv.enabled()) std::cout << "csv: " << csv.path() << "\n";
    return 0;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
