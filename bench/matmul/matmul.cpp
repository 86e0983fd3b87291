// matmul: the SGEMM ladder, C = A * B in fp32 with row-major A (m x k), B (k x n) and C (m x n):
// six rungs from one output per work-item to 8 x 8 register blocks with float4 loads, on every
// backend of the selected GPU, beside cuBLAS SGEMM in strict fp32 (CUDA devices). Rate: 2 m n k
// floating-point operations per second. Every result is checked against the CPU (in full for
// small products, a random sample of elements for large ones); exit code 1 when any is wrong.
#include "ladder.hpp"
#include "matmul_check.hpp"
#include "matmul_rungs.hpp"
#include "progress.hpp"
#include "vendor_baseline.hpp"

#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace matmul = dualrt::samples::matmul;
using dualrt::samples::LadderReport;
using dualrt::samples::RungResult;

const char* const vendor_rung = "cuBLAS SGEMM (strict fp32)";

struct Problem {
    std::size_t m = 0, n = 0, k = 0;
    std::vector<float> a, b;
};

struct Options {
    int warmup = 0, repetitions = 0;
    double rung_ms = 0.0;  // a slow rung's timed runs stop at about this much device time
};

// --rungs: "all" or a comma-separated list of rung numbers ("1,5,6"). Empty on a bad list.
std::vector<matmul::Rung> chosen_rungs(const std::string& text) {
    if (text == "all") return matmul::rungs();
    std::vector<matmul::Rung> chosen;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ',')) {
        const auto& all = matmul::rungs();
        const auto found = std::find_if(all.begin(), all.end(), [&](const matmul::Rung& r) {
            return std::to_string(r.number) == item;
        });
        if (found == all.end()) return {};
        chosen.push_back(*found);
    }
    return chosen;
}

// A row for the report, verified against `checker`.
RungResult make_row(const std::string& rung, const dualrt::Device& device,
                    const dualrt::samples::Timing& timing, const Problem& problem,
                    const matmul::Checker& checker, const std::vector<float>& c) {
    RungResult row;
    row.rung = rung;
    row.backend = device.backend();
    row.device = device.info().name;
    row.timing = timing;
    row.work = matmul::flops(problem.m, problem.n, problem.k);
    row.note = checker.check(c);
    row.verified = row.note.empty();
    return row;
}

// One rung on one device: a first run shows how long a run takes, so a slow rung (the naive
// one at 4096^3 takes a good fraction of a second) runs fewer timed repetitions, at least 3.
RungResult measure_rung(const dualrt::Device& device, dualrt::Queue& queue,
                        const matmul::Rung& rung, const Problem& problem,
                        const dualrt::Buffer<float>& a, const dualrt::Buffer<float>& b,
                        const dualrt::Buffer<float>& c, const matmul::Checker& checker,
                        const Options& options) {
    const dualrt::Kernel kernel = device.kernel(rung.kernel);  // builds it, outside the timing
    queue.fill(c, std::numeric_limits<float>::quiet_NaN());  // a rung must write all of C
    const auto enqueue = [&] {
        matmul::launch(queue, kernel, rung, a, b, c, problem.m, problem.n, problem.k);
    };
    const double first_ms = dualrt::samples::time_on_device(queue, 0, 1, enqueue).median_ms;
    int repetitions = options.repetitions;
    if (first_ms * repetitions > options.rung_ms)
        repetitions = std::min(repetitions,
                               std::max(3, static_cast<int>(options.rung_ms / first_ms)));
    const auto timing = dualrt::samples::time_on_device(
        queue, std::max(0, options.warmup - 1), repetitions, enqueue);
    std::vector<float> result(problem.m * problem.n);
    queue.copy(result, c, dualrt::Sync::blocking);
    return make_row(rung.title, device, timing, problem, checker, result);
}

RungResult measure_vendor(dualrt::bench::VendorBaseline& vendor, const dualrt::Device& device,
                          const Problem& problem, const matmul::Checker& checker,
                          const Options& options) {
    std::vector<float> result(problem.m * problem.n, std::numeric_limits<float>::quiet_NaN());
    const auto t = vendor.sgemm(static_cast<int>(problem.m), static_cast<int>(problem.n),
                                static_cast<int>(problem.k), problem.a.data(), problem.b.data(),
                                result.data(), options.warmup, options.repetitions);
    dualrt::samples::Timing timing;
    timing.median_ms = t.median_ms;
    timing.min_ms = t.min_ms;
    timing.max_ms = t.max_ms;
    timing.repetitions = t.repetitions;
    RungResult row = make_row(vendor_rung, device, timing, problem, checker, result);
    if (row.verified) row.note = "vendor library";
    return row;
}

std::size_t dimension(const dualrt::samples::Args& args, const char* name) {
    const long long value = args.integer(name);
    return static_cast<std::size_t>(value > 0 ? value : args.integer("size"));
}

int run(const dualrt::samples::Args& args) {
    const std::vector<matmul::Rung> rungs = chosen_rungs(args.text("rungs"));
    if (rungs.empty()) {
        std::cerr << "bad value for --rungs: '" << args.text("rungs")
                  << "' is not 'all' or a comma-separated list of 1 to "
                  << matmul::rungs().size() << "\n"
                  << args.usage();
        return 2;
    }
    Problem problem;
    problem.m = dimension(args, "m");
    problem.n = dimension(args, "n");
    problem.k = dimension(args, "k");
    std::uint64_t seed = static_cast<std::uint64_t>(args.integer("seed"));
    if (seed == 0) seed = std::random_device{}();
    Options options;
    options.warmup = dualrt::samples::warmup_runs(args);
    options.repetitions = dualrt::samples::repetitions(args);
    options.rung_ms = static_cast<double>(args.integer("rung-ms"));

    const auto devices = dualrt::samples::ladder_devices(args, std::cerr);
    std::vector<std::unique_ptr<dualrt::bench::VendorBaseline>> vendors;
    for (const auto& device : devices) {
        std::string why_not;
        if (device.backend() == dualrt::Backend::cuda) {
            vendors.push_back(dualrt::bench::load_vendor_baseline(device, why_not));
            if (!vendors.back()) std::cerr << "no cuBLAS row: " << why_not << "\n";
        } else {
            vendors.emplace_back();
        }
    }

    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    problem.a.resize(problem.m * problem.k);
    problem.b.resize(problem.k * problem.n);
    for (auto& v : problem.a) v = dist(engine);
    for (auto& v : problem.b) v = dist(engine);
    const matmul::Checker checker(problem.a, problem.b, problem.m, problem.n, problem.k,
                                  static_cast<std::size_t>(args.integer("samples")), seed + 1);

    std::cout << "dualrt " << dualrt::version_string() << " SGEMM ladder: C = A * B, fp32, "
              << "row-major, m " << problem.m << ", n " << problem.n << ", k " << problem.k
              << "; inputs uniform in [-1, 1), seed " << seed << "\n"
              << "warm-up " << options.warmup << ", " << options.repetitions
              << " timed runs per row (median of device times; slow rungs fewer, to about "
              << args.integer("rung-ms") << " ms); rate = 2 m n k / time\n"
              << "checked against the CPU (double): " << checker.describe() << "\n";
    for (std::size_t d = 0; d < devices.size(); ++d) {
        const auto& info = devices[d].info();
        std::cout << "  " << dualrt::to_string(info.backend) << " device " << info.index << " '"
                  << info.name << "' (" << info.platform << ", driver " << info.driver_version
                  << ")\n";
        if (vendors[d]) std::cout << "  vendor: " << vendors[d]->describe() << "\n";
    }

    dualrt::samples::CsvWriter csv = dualrt::samples::open_ladder_csv(args);
    std::size_t steps = 0;
    for (const auto& vendor : vendors) steps += rungs.size() + (vendor ? 1 : 0);
    dualrt::samples::Progress progress(args.progress_mode(), steps);
    std::ostringstream dims;
    dims << problem.m << "x" << problem.n << "x" << problem.k;
    LadderReport report("sgemm f32 " + dims.str(), "GFLOP/s");
    for (std::size_t d = 0; d < devices.size(); ++d) {
        const auto& device = devices[d];
        const std::string backend = dualrt::to_string(device.backend());
        dualrt::Queue queue = device.create_queue();
        auto a = device.alloc<float>(problem.a.size());
        auto b = device.alloc<float>(problem.b.size());
        auto c = device.alloc<float>(problem.m * problem.n);
        queue.copy(a, problem.a);
        queue.copy(b, problem.b);
        const auto& info = device.info();
        for (const auto& rung : rungs) {
            progress.step(backend + ": " + rung.title);
            if (rung.local_x * rung.local_y > info.max_work_group_size ||
                rung.local_x > info.max_work_item_sizes[0] ||
                rung.local_y > info.max_work_item_sizes[1]) {
                progress.clear();
                std::cerr << "skipping rung " << rung.number << " on " << backend
                          << ": work-groups of " << rung.local().str()
                          << " exceed the device's limits\n";
                continue;
            }
            report.add(measure_rung(device, queue, rung, problem, a, b, c, checker, options));
        }
        if (vendors[d]) {
            progress.step(backend + ": " + vendor_rung);
            report.add(measure_vendor(*vendors[d], device, problem, checker, options));
        }
    }
    progress.clear();

    report.add_reference("cuBLAS", vendor_rung);
    std::cout << "\n";
    report.print(std::cout);
    report.write(csv);
    return dualrt::samples::finish_ladder("matmul", csv, report.all_verified());
}

}  // namespace

int main(int argc, char** argv) {
    dualrt::samples::Args args(
        "matmul",
        "The SGEMM ladder, C = A * B in fp32: six rungs from one output per work-item to 8x8\n"
        "register blocks with float4 loads, on every backend of the selected GPU, beside cuBLAS\n"
        "SGEMM in strict fp32 (CUDA). --size sets m = n = k; --m, --n, --k override one each.");
    args.add_integer("size", "N", "m, n and k unless given one by one", 4096, 1, 65536);
    args.add_integer("m", "N", "rows of A and C (0: --size)", 0, 0, 1 << 20);
    args.add_integer("n", "N", "columns of B and C (0: --size)", 0, 0, 1 << 20);
    args.add_integer("k", "N", "columns of A, rows of B (0: --size)", 0, 0, 1 << 20);
    args.add_text("rungs", "LIST", "the rungs to run: all, or numbers such as 1,5,6", "all");
    args.add_integer("samples", "N",
                     "elements checked (at random) when the product is too large to check in "
                     "full",
                     4096, 1, 1 << 24);
    args.add_integer("rung-ms", "MS",
                     "a slow rung's timed runs stop at about this much device time (at least 3)",
                     2000, 1, 3600000);
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
