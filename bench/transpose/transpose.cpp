// transpose: the fp32 matrix-transpose ladder on every backend of one GPU, beside a plain copy of
// the same size and launch shape (copy_2d_f32):
//   copy                                 the yardstick: what moving the bytes costs at best
//   1 naive                              coalesced reads, writes `rows` floats apart
//   2 coalesced (local tile)             both ways coalesced through a 64x64 local-memory tile
//   3 padded tile (no bank conflicts)    the tile's rows padded to 65 floats
// Rate: 2 * rows * cols * 4 bytes (each element read once and written once) per second. Every
// rung's output (of its last timed run) is checked against the CPU transpose; a mismatch makes
// the exit code 1.
#include "ladder.hpp"
#include "matrix.hpp"
#include "rungs.hpp"

#include <dualrt/dualrt.hpp>

#include <cstdint>
#include <exception>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace samples = dualrt::samples;
namespace transpose = dualrt::samples::transpose;
using transpose::Shape;

// The largest matrix side: CUDA launches the tiles of `rows` as gridDim.y, at most 65535 of
// them; the kernels take both sides as uint.
constexpr long long max_side = 65535LL * static_cast<long long>(transpose::tile);

std::optional<Shape> parse_shape(const std::string& text) {
    const auto x = text.find('x');
    if (x == std::string::npos) return std::nullopt;
    try {
        std::size_t used_rows = 0, used_cols = 0;
        const std::string rows = text.substr(0, x), cols = text.substr(x + 1);
        const long long r = std::stoll(rows, &used_rows), c = std::stoll(cols, &used_cols);
        if (used_rows != rows.size() || used_cols != cols.size()) return std::nullopt;
        if (r < 1 || c < 1 || r > max_side || c > max_side) return std::nullopt;
        return Shape{static_cast<std::size_t>(r), static_cast<std::size_t>(c)};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

samples::RungResult run_rung(const dualrt::Device& device, dualrt::Queue& queue,
                             const transpose::Rung& rung, const Shape& shape,
                             const dualrt::Buffer<float>& in, const dualrt::Buffer<float>& out,
                             const std::vector<float>& input,
                             const std::vector<float>& transposed, const samples::Args& args) {
    const dualrt::Kernel kernel = device.kernel(rung.kernel);  // built here, outside the timing
    const std::size_t width = shape.cols, height = shape.rows;
    const auto global = transpose::global_range(width, height);
    const auto local = transpose::local_range();
    // Poisoned first, so that an element no run writes is a mismatch.
    queue.fill(out, std::numeric_limits<float>::quiet_NaN());
    samples::RungResult row;
    row.rung = rung.name;
    row.backend = device.backend();
    row.device = device.info().name;
    row.work = 2.0 * static_cast<double>(shape.elements()) * sizeof(float);
    row.timing = samples::time_on_device(
        queue, samples::warmup_runs(args), samples::repetitions(args), [&] {
            queue.launch(kernel, global, local, static_cast<std::uint32_t>(width),
                         static_cast<std::uint32_t>(height), in, out);
        });
    std::vector<float> result(shape.elements());
    queue.copy(result, out, dualrt::Sync::blocking);
    // The copy's result has the input's shape, a transpose's is cols x rows.
    row.note = rung.transposes
                   ? transpose::mismatch(result, transposed, {shape.cols, shape.rows})
                   : transpose::mismatch(result, input, shape);
    row.verified = row.note.empty();
    return row;
}

// Every rung of the ladder on every device, for one shape; returns the report.
samples::LadderReport run_shape(const std::vector<dualrt::Device>& devices, const Shape& shape,
                                const samples::Args& args, samples::Progress& progress) {
    const auto input = transpose::random_matrix(shape, 0x5EED0000u + shape.rows);
    const auto transposed = transpose::cpu_transpose(input, shape);
    samples::LadderReport report("transpose f32 " + shape.str(), "GB/s");
    report.add_reference("copy", transpose::copy_rung);
    for (const auto& device : devices) {
        dualrt::Queue queue = device.create_queue();
        auto in = device.alloc<float>(shape.elements());
        auto out = device.alloc<float>(shape.elements());
        queue.copy(in, input, dualrt::Sync::blocking);
        for (const auto& rung : transpose::rungs) {
            progress.step(shape.str() + ", " + dualrt::to_string(device.backend()) + ": " +
                          rung.name);
            report.add(run_rung(device, queue, rung, shape, in, out, input, transposed, args));
        }
    }
    progress.clear();
    return report;
}

int run(const samples::Args& args) {
    std::vector<Shape> shapes = {{static_cast<std::size_t>(args.integer("rows")),
                                  static_cast<std::size_t>(args.integer("cols"))}};
    const std::string& second = args.text("rectangular");
    if (second != "none") {
        const auto shape = parse_shape(second);
        if (!shape) {
            std::cerr << "transpose: bad value for --rectangular: '" << second
                      << "' is not ROWSxCOLS with sides 1.." << max_side << " (or 'none')\n\n"
                      << args.usage();
            return 2;
        }
        shapes.push_back(*shape);
    }

    const auto devices = samples::ladder_devices(args, std::cerr);
    std::cout << "transpose ladder, fp32, out = in^T; tiles of " << transpose::tile << "x"
              << transpose::tile << " in work-groups of " << transpose::tile << "x"
              << transpose::tile_rows << "; median of " << samples::repetitions(args)
              << " runs after " << samples::warmup_runs(args) << " warm-up\n";
    for (const auto& device : devices) {
        const auto& info = device.info();
        std::cout << "  " << dualrt::to_string(info.backend) << " device " << info.index << " '"
                  << info.name << "' (" << info.platform << ")\n";
    }

    samples::CsvWriter csv = samples::open_ladder_csv(args);
    samples::Progress progress(args.progress_mode(), shapes.size() * devices.size() *
                                                         std::size(transpose::rungs));
    bool all_verified = true;
    for (const auto& shape : shapes) {
        const auto report = run_shape(devices, shape, args, progress);
        std::cout << "\n"
                  << shape.str() << " (rows x cols), "
                  << samples::format_bytes(shape.elements() * sizeof(float))
                  << " per matrix; GB/s = 2 * rows * cols * 4 bytes / time\n";
        report.print(std::cout);
        report.write(csv);
        all_verified = all_verified && report.all_verified();
    }
    return samples::finish_ladder("transpose", csv, all_verified);
}

}  // namespace

int main(int argc, char** argv) {
    samples::Args args(
        "transpose",
        "The fp32 transpose ladder (naive, coalesced through a local tile, padded tile) on every\n"
        "backend of one GPU, beside a 2-D copy of the same size and launch shape. Every output\n"
        "is checked against the CPU transpose.");
    samples::add_timing_options(args);
    args.add_integer("rows", "N", "rows of the input matrix", 8192, 1, max_side);
    args.add_integer("cols", "N", "columns of the input matrix", 8192, 1, max_side);
    args.add_text("rectangular", "ROWSxCOLS",
                  "a second shape run after --rows x --cols ('none' for none)", "4096x16384");
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    try {
        return run(args);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
