// stencil: a large float image in ordinary (pageable) host memory, streamed in blocks of rows
// through a 3x3 blur (the built-in stencil_blur3x3) by dualrt's Pipeline with a halo of one row,
// beside the same streamed stencil written by hand in plain CUDA / plain OpenCL (bench/), in the
// same run. Every output is checked bit for bit against the host. Times are host wall-clock time
// of the whole job, image in host memory to blurred image in host memory.
#include "options.hpp"
#include "csv.hpp"
#include "native_baseline.hpp"
#include "native_common.hpp"
#include "progress.hpp"
#include "stencil_runs.hpp"
#include "table.hpp"

#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using dualrt::samples::fixed;

// "32,128,512" -> {32, 128, 512}; every entry at least 1.
std::vector<std::size_t> parse_rows(const std::string& text) {
    std::vector<std::size_t> rows;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const long long value = std::stoll(text.substr(start, comma - start));
        if (value < 1) throw std::invalid_argument("rows per chunk must be at least 1");
        rows.push_back(static_cast<std::size_t>(value));
        start = comma + 1;
    }
    return rows;
}

// GB/s of the job's traffic: the image up and the blur down.
double gigabytes_per_second(const dualrt::samples::Image& image, double ms) {
    return ms > 0.0 ? 2.0 * static_cast<double>(image.pixels.size() * sizeof(float)) / ms / 1e6
                    : 0.0;
}

}  // namespace

int main(int argc, char** argv) try {
    dualrt::samples::Args args("stencil",
                               "A 3x3 blur streamed over a large image in blocks of rows: dualrt's "
                               "Pipeline with a row halo beside a hand-written native pipeline.");
    args.add_integer("width", "N", "image width in floats", 8192, 1, 1 << 20);
    args.add_integer("height", "N", "image height in rows", 8192, 1, 1 << 24);
    args.add_text("rows", "LIST", "rows per chunk to sweep (fixed chunking)", "32,128,512");
    args.add_text("host", "KIND", "host memory of the image: pageable or pinned", "pageable");
    args.add_integer("repetitions", "N", "timed runs per point (median)", 5, 1, 1000);
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    const int repetitions = static_cast<int>(args.integer("repetitions"));
    const auto row_counts = parse_rows(args.text("rows"));
    const std::string host = args.text("host");
    if (host != "pageable" && host != "pinned")
        throw std::invalid_argument("--host must be pageable or pinned, not '" + host + "'");
    const bool pinned = host == "pinned";

    const dualrt::Device device = dualrt::select(args.selection());
    const auto image = dualrt::samples::random_image(
        static_cast<std::size_t>(args.integer("width")),
        static_cast<std::size_t>(args.integer("height")), std::random_device{}());
    const auto& info = device.info();
    std::cout << "stencil on " << dualrt::to_string(info.backend) << " '" << info.name << "' ("
              << info.driver_version << "), " << image.width << " x " << image.height << " floats ("
              << dualrt::samples::format_bytes(image.pixels.size() * sizeof(float)) << "), "
              << host << " host memory, median of " << repetitions << " runs\n";
    dualrt::samples::Progress progress(args.progress_mode(), 2 * row_counts.size() + 3);
    progress.step("host reference");
    const auto expected = dualrt::samples::reference_blur(image);

    std::unique_ptr<dualrt::bench::NativeBaseline> native;
    try {
        native = dualrt::bench::load_native_baseline(device);
    } catch (const dualrt::Error& e) {
        std::cout << "native baseline unavailable: " << e.what() << "\n";
    }
    // The native stencil at `rows` rows per chunk on `lanes` queues (as many as dualrt's
    // pipeline used), checked like dualrt's; 0 without a baseline.
    std::vector<float> native_output(image.pixels.size());
    const auto native_ms = [&](std::size_t rows, std::size_t lanes) {
        if (!native) return 0.0;
        dualrt::bench::StencilJob job;
        job.image = image.pixels.data();
        job.output = native_output.data();
        job.width = image.width;
        job.height = image.height;
        job.rows_per_chunk = rows;
        job.lanes = static_cast<int>(lanes);
        job.host = pinned ? dualrt::bench::HostMemory::pinned : dualrt::bench::HostMemory::pageable;
        job.repetitions = repetitions;
        std::fill(native_output.begin(), native_output.end(), std::nanf(""));
        const double ms = native->stencil_ms(job);
        const std::string wrong =
            dualrt::samples::compare_pixels(native_output, expected, image.width);
        if (!wrong.empty())
            throw std::runtime_error("the native streamed stencil computed a wrong image: " +
                                     wrong);
        return ms;
    };

    dualrt::samples::Table table({"chunking", "chunks", "dualrt ms", "native ms",
                                  "native/dualrt", "dualrt GB/s", "native GB/s"});
    dualrt::samples::CsvWriter csv;
    if (!args.csv_path().empty())
        csv = dualrt::samples::CsvWriter(
            args.csv_path(), {"backend", "device", "host", "width", "height", "chunking", "chunks",
                              "dualrt_ms", "native_ms", "native_over_dualrt", "dualrt_chunking"});
    double best_native = 0.0;
    const auto add = [&](const std::string& chunking, const dualrt::samples::StreamedRun& run,
                         double native_time) {
        if (native_time > 0.0 && (best_native == 0.0 || native_time < best_native))
            best_native = native_time;
        table.add({chunking, std::to_string(run.report.chunks), fixed(run.host_ms, 3),
                   native_time > 0 ? fixed(native_time, 3) : "-",
                   native_time > 0 ? fixed(native_time / run.host_ms, 3) : "-",
                   fixed(gigabytes_per_second(image, run.host_ms), 2),
                   native_time > 0 ? fixed(gigabytes_per_second(image, native_time), 2) : "-"});
        csv.row({dualrt::to_string(info.backend), info.name, host, std::to_string(image.width),
                 std::to_string(image.height), chunking, std::to_string(run.report.chunks),
                 fixed(run.host_ms, 4), fixed(native_time, 4),
                 native_time > 0 ? fixed(native_time / run.host_ms, 4) : "",
                 run.report.chunking});
    };

    for (std::size_t rows : row_counts) {
        const std::size_t clamped = std::min(rows, image.height);
        progress.step("dualrt, " + std::to_string(clamped) + " rows per chunk");
        dualrt::PipelineOptions options;
        options.chunking = dualrt::Chunking::elements(clamped * image.width);
        dualrt::Pipeline pipeline(device, options);
        const auto run = dualrt::samples::run_streamed(pipeline, image, expected, pinned,
                                                       repetitions);
        progress.step("native, " + std::to_string(clamped) + " rows per chunk");
        add(std::to_string(clamped) + " rows", run, native_ms(clamped, run.report.queues));
    }
    progress.step("dualrt, automatic chunking");
    dualrt::Pipeline automatic(device);
    const auto auto_run = dualrt::samples::run_streamed(automatic, image, expected, pinned,
                                                        repetitions);
    add("auto", auto_run, 0.0);
    progress.clear();
    table.print(std::cout);

    std::cout << "\ndualrt auto: " << auto_run.report.summary();
    if (best_native > 0.0)
        std::cout << "auto vs the best native chunking: native/dualrt "
                  << fixed(best_native / auto_run.host_ms, 3) << " (" << fixed(best_native, 3)
                  << " ms against " << fixed(auto_run.host_ms, 3) << " ms)\n";
    std::cout << "every output equals the host reference bit for bit\n";
    if (csv.enabled()) std::cout << "csv: " << csv.path() << "\n";
    return 0;
} catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
