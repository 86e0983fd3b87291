// overlap: how much copy/compute overlap buys on this machine. A job of three balanced stages
// (upload, the `busy` kernel calibrated to take as long as the upload, download) runs serial, on
// two queues, on three and on lanes (a queue per chunk in flight), over a sweep of chunk counts
// and with "auto", through dualrt's Pipeline and through a hand-written native pipeline (plain
// CUDA / plain OpenCL) in the same run. The native pipeline has stage queues only: lanes rows
// stand beside its three-queue time. Writes the timeline of an auto run that times every chunk
// as a Chrome trace (JSON) and an SVG picture.
#include "options.hpp"
#include "csv.hpp"
#include "native_baseline.hpp"
#include "native_common.hpp"
#include "progress.hpp"
#include "table.hpp"
#include "timeline_svg.hpp"

#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using dualrt::bench::detail::busy_reference;
using dualrt::bench::detail::median;
using dualrt::samples::fixed;

std::vector<std::size_t> parse_counts(const std::string& text) {
    std::vector<std::size_t> counts;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ',')) {
        const long long value = std::stoll(item);
        if (value < 1) throw std::invalid_argument("chunk counts must be at least 1: " + item);
        counts.push_back(static_cast<std::size_t>(value));
    }
    return counts;
}

// The job: n floats, busy(iterations) in place on the device; pinned host input and output.
struct Job {
    dualrt::Device device;
    dualrt::Kernel busy;
    std::size_t n = 0;
    std::uint32_t iterations = 0;
    dualrt::HostBuffer<float> input, output;
    std::vector<std::size_t> probes;  // elements checked after every run
};

double time_upload_ms(Job& job, int repetitions) {
    auto queue = job.device.create_queue();
    auto buffer = job.device.alloc<float>(job.n);
    std::vector<double> times;
    for (int r = 0; r <= repetitions; ++r) {
        auto start = queue.record();
        queue.copy(buffer, job.input);
        auto end = queue.record();
        if (r > 0) times.push_back(dualrt::Event::elapsed_ms(start, end));  // r == 0: warm-up
    }
    return median(times);
}

double time_kernel_ms(Job& job, std::uint32_t iterations, int repetitions) {
    auto queue = job.device.create_queue();
    auto buffer = job.device.alloc<float>(job.n);
    queue.copy(buffer, job.input);
    std::vector<double> times;
    for (int r = 0; r <= repetitions; ++r) {
        auto start = queue.record();
        queue.launch(job.busy, {job.n}, {}, buffer, static_cast<std::uint32_t>(job.n), iterations);
        auto end = queue.record();
        if (r > 0) times.push_back(dualrt::Event::elapsed_ms(start, end));
    }
    return median(times);
}

// Picks the iteration count that makes the kernel take as long as the upload: the kernel's time
// is close to linear in iterations, so two measurements settle it.
std::uint32_t calibrate(Job& job, double upload_ms, int repetitions) {
    std::uint32_t iterations = 64;
    for (int round = 0; round < 2; ++round) {
        const double ms = time_kernel_ms(job, iterations, repetitions);
        const double scaled = iterations * upload_ms / std::max(ms, 1e-6);
        iterations = static_cast<std::uint32_t>(std::clamp(scaled, 1.0, 1e6));
    }
    return iterations;
}

// "" when the probed output elements equal the host reference.
std::string verify(const Job& job) {
    for (std::size_t i : job.probes) {
        const float expected = busy_reference(job.input[i], job.iterations);
        if (job.output[i] != expected) {
            std::ostringstream what;
            what << "element " << i << " is " << job.output[i] << ", expected " << expected;
            return what.str();
        }
    }
    return {};
}

struct LibraryRun {
    double measured_ms = 0.0;
    dualrt::PipelineReport report;  // of the median run
    // The busiest engine's share of a run with every chunk timed. Sampled runs time a few chunks
    // and estimate the others, and a share of estimates could claim more than was done.
    std::optional<double> efficiency;
};

// `repetitions` timed runs of one Pipeline after an untimed first one.
LibraryRun run_library(Job& job, dualrt::PipelineMode mode, dualrt::Chunking chunking,
                       int repetitions,
                       dualrt::PipelineTiming timing = dualrt::PipelineTiming::sampled) {
    dualrt::PipelineOptions options;
    options.mode = mode;
    options.chunking = chunking;
    options.in_place = true;
    options.timing = timing;
    dualrt::Pipeline pipeline(job.device, options);
    const auto compute = [&](dualrt::Chunk<float, float>& chunk) {
        chunk.queue.launch(job.busy, {chunk.size()}, {}, chunk.input,
                           static_cast<std::uint32_t>(chunk.size()), job.iterations);
    };
    std::vector<dualrt::PipelineReport> reports;
    for (int r = 0; r <= repetitions; ++r) {
        std::fill(job.output.begin(), job.output.end(), std::nanf(""));
        auto report = pipeline.run(job.input, job.output, compute);
        const std::string wrong = verify(job);
        if (!wrong.empty())
            throw std::runtime_error("dualrt pipeline (" + std::string(to_string(mode)) + ", " +
                                     chunking.str() + ") computed a wrong result: " + wrong);
        if (r > 0) reports.push_back(std::move(report));  // r == 0: warm-up
    }
    std::sort(reports.begin(), reports.end(), [](const auto& a, const auto& b) {
        return a.measured_ms < b.measured_ms;
    });
    LibraryRun run;
    run.report = reports[reports.size() / 2];
    run.measured_ms = run.report.measured_ms;
    run.efficiency = timing == dualrt::PipelineTiming::every_chunk
                         ? run.report.efficiency()
                         : run_library(job, mode, chunking, 1, dualrt::PipelineTiming::every_chunk)
                               .efficiency;
    return run;
}

}  // namespace

int main(int argc, char** argv) try {
    dualrt::samples::Args args("overlap",
                               "Copy/compute overlap: serial vs two and three queues, dualrt's "
                               "Pipeline vs a hand-written native pipeline, over chunk counts.");
    args.add_bytes("size", "BYTES", "bytes moved each way (floats)", "256M");
    args.add_text("chunks", "LIST", "chunk counts to sweep", "2,4,8,16,32,64,128");
    args.add_integer("repetitions", "N", "timed runs per point (median)", 5, 1, 1000);
    args.add_text("trace", "FILE", "Chrome/Perfetto trace of dualrt's auto run, every chunk timed",
                  "overlap.json");
    args.add_text("svg", "FILE", "SVG picture of the same timeline", "overlap.svg");
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    const int repetitions = static_cast<int>(args.integer("repetitions"));
    const auto counts = parse_counts(args.text("chunks"));

    Job job;
    job.device = dualrt::select(args.selection());
    job.busy = job.device.kernel("busy");
    job.n = std::max<std::size_t>(1, args.bytes("size") / sizeof(float));
    job.input = job.device.alloc_host<float>(job.n);
    job.output = job.device.alloc_host<float>(job.n);
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (auto& v : job.input) v = dist(rng);
    std::uniform_int_distribution<std::size_t> anywhere(0, job.n - 1);
    job.probes = {0, job.n - 1};
    for (int i = 0; i < 4096; ++i) job.probes.push_back(anywhere(rng));

    const auto& info = job.device.info();
    std::cout << "overlap on " << dualrt::to_string(info.backend) << " '" << info.name << "' ("
              << info.driver_version << "), " << dualrt::samples::format_bytes(job.n * 4)
              << " each way, pinned host memory, median of " << repetitions << " runs\n";
    // Steps: the calibration, serial, each mode at each chunk count, auto twice.
    dualrt::samples::Progress progress(args.progress_mode(), 3 * counts.size() + 4);
    progress.step("calibrating the busy kernel against the upload");
    const double upload_ms = time_upload_ms(job, repetitions);
    job.iterations = calibrate(job, upload_ms, repetitions);
    const double kernel_ms = time_kernel_ms(job, job.iterations, repetitions);
    progress.clear();
    std::cout << "stages: upload " << fixed(upload_ms, 3) << " ms, busy(" << job.iterations
              << " iterations) " << fixed(kernel_ms, 3) << " ms\n";

    std::unique_ptr<dualrt::bench::NativeBaseline> native;
    try {
        native = dualrt::bench::load_native_baseline(job.device);
    } catch (const dualrt::Error& e) {
        std::cout << "native baseline unavailable: " << e.what() << "\n";
    }
    // Measured once per (chunks, queues): lanes rows reuse the three-queue figures.
    std::map<std::pair<std::size_t, int>, double> native_times;
    const auto native_ms = [&](std::size_t chunks, int queues) {
        if (!native) return 0.0;
        auto found = native_times.find({chunks, queues});
        if (found == native_times.end())
            found = native_times
                        .emplace(std::make_pair(chunks, queues),
                                 native->pipeline_ms(job.n, job.iterations,
                                                     static_cast<int>(chunks), queues,
                                                     repetitions))
                        .first;
        return found->second;
    };

    using dualrt::Chunking;
    using dualrt::PipelineMode;
    dualrt::samples::Table table({"mode", "chunks", "dualrt ms", "native ms", "native/dualrt",
                                  "dualrt speedup", "native speedup", "efficiency"});
    dualrt::samples::CsvWriter csv;
    if (!args.csv_path().empty())
        csv = dualrt::samples::CsvWriter(
            args.csv_path(), {"backend", "device", "mode", "chunks", "dualrt_ms", "native_ms",
                              "dualrt_speedup", "native_speedup", "efficiency", "chunking"});

    progress.step("serial");
    const auto serial = run_library(job, PipelineMode::three_queues, Chunking::count(1),
                                    repetitions);
    const double native_serial = native_ms(1, 1);
    double best_native_speedup = 0.0;
    std::string best_native;
    // `native_mode` names the native pipeline beside the row (for the best native speedup).
    const auto add = [&](const std::string& mode, const std::string& chunks,
                         const LibraryRun& run, double native_time,
                         const std::string& native_mode) {
        const double speedup = serial.measured_ms / run.measured_ms;
        const double native_speedup = native_time > 0 ? native_serial / native_time : 0.0;
        table.add({mode, chunks, fixed(run.measured_ms, 3),
                   native_time > 0 ? fixed(native_time, 3) : "-",
                   native_time > 0 ? fixed(native_time / run.measured_ms, 3) : "-",
                   fixed(speedup, 2) + "x",
                   native_time > 0 ? fixed(native_speedup, 2) + "x" : "-",
                   run.efficiency ? fixed(100.0 * *run.efficiency, 0) + "%" : "-"});
        csv.row({dualrt::to_string(info.backend), info.name, mode, chunks,
                 fixed(run.measured_ms, 4), fixed(native_time, 4), fixed(speedup, 4),
                 fixed(native_speedup, 4), run.efficiency ? fixed(*run.efficiency, 4) : "",
                 run.report.chunking});
        if (native_speedup > best_native_speedup) {
            best_native_speedup = native_speedup;
            best_native = native_mode + ", " + chunks + " chunks";
        }
    };
    add("serial", "1", serial, native_serial, "serial");
    for (auto mode : {PipelineMode::two_queues, PipelineMode::three_queues, PipelineMode::lanes}) {
        const int queues = mode == PipelineMode::two_queues ? 2 : 3;  // lanes: beside three
        for (std::size_t chunks : counts) {
            progress.step(std::string(to_string(mode)) + ", " + std::to_string(chunks) +
                          " chunks");
            add(std::string(to_string(mode)), std::to_string(chunks),
                run_library(job, mode, Chunking::count(chunks), repetitions),
                native_ms(chunks, queues),
                to_string(queues == 2 ? PipelineMode::two_queues : PipelineMode::three_queues));
        }
    }
    progress.step("automatic mode and chunking");
    const auto automatic = run_library(job, PipelineMode::automatic, Chunking::automatic(),
                                       repetitions);
    add(std::string(to_string(automatic.report.mode)) + ", auto",
        std::to_string(automatic.report.chunks), automatic, 0.0, "");
    // The same with every chunk timed: the price of full timing, and a timeline of every chunk.
    progress.step("automatic, every chunk timed");
    const auto pictured = run_library(job, PipelineMode::automatic, Chunking::automatic(),
                                      repetitions, dualrt::PipelineTiming::every_chunk);
    add(std::string(to_string(pictured.report.mode)) + ", auto, every chunk timed",
        std::to_string(pictured.report.chunks), pictured, 0.0, "");
    progress.clear();
    table.print(std::cout);

    const double auto_speedup = serial.measured_ms / automatic.measured_ms;
    std::cout << "\ndualrt auto: " << automatic.report.summary();
    if (best_native_speedup > 0)
        std::cout << "auto speedup " << fixed(auto_speedup, 2) << "x vs the best native "
                  << fixed(best_native_speedup, 2) << "x (" << best_native
                  << "): ratio " << fixed(auto_speedup / best_native_speedup, 3) << "\n";
    pictured.report.timeline.write_chrome_json(args.text("trace"));
    dualrt::samples::write_timeline_svg(pictured.report.timeline, args.text("svg"));
    std::cout << "timeline: " << args.text("trace") << " (open in https://ui.perfetto.dev), "
              << args.text("svg") << "\n";
    if (csv.enabled()) std::cout << "csv: " << csv.path() << "\n";
    return 0;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
