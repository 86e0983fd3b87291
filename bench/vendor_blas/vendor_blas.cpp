// vendor_blas: a vendor BLAS on dualrt's buffers and queue, through their native handles: SGEMM
// (C = A * B, fp32, row-major) by cuBLAS on a CUDA device or CLBlast on an OpenCL device, checked
// against the CPU and against the matmul ladder's best rung run on the same buffers and queue,
// both timed with dualrt events. The libraries are loaded at run time: where the selected
// device's is missing, the program says why and exits with 77 (skipped). --borrowed-cost adds what
// a borrowed queue (wrap_queue) costs beside dualrt's own.
// Exit code: 0 all verified, 1 a result is wrong or an error, 2 bad command line, 77 skipped.
#include "borrowed_cost.hpp"
#include "ladder.hpp"
#include "ladder_compare.hpp"
#include "matmul_check.hpp"
#include "matmul_rungs.hpp"
#include "table.hpp"
#include "vendor_sgemm.hpp"

#include <dualrt/dualrt.hpp>

#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace matmul = dualrt::samples::matmul;
namespace vendor_blas = dualrt::samples::vendor_blas;
using dualrt::samples::RungResult;

constexpr int skipped_exit_code = 77;

struct Problem {
    std::size_t m = 0, n = 0, k = 0;
    std::vector<float> a, b;
};

// Times `enqueue` on `queue` (C poisoned first: every row must write all of C), reads C back and
// checks it against the CPU.
RungResult measure(const std::string& name, const dualrt::Device& device, dualrt::Queue& queue,
                   const dualrt::Buffer<float>& c, const Problem& problem,
                   const matmul::Checker& checker, int warmup, int repetitions,
                   const std::function<void()>& enqueue, std::vector<float>& result) {
    queue.fill(c, std::numeric_limits<float>::quiet_NaN());
    RungResult row;
    row.rung = name;
    row.backend = device.backend();
    row.device = device.info().name;
    row.timing = dualrt::samples::time_on_device(queue, warmup, repetitions, enqueue);
    row.work = matmul::flops(problem.m, problem.n, problem.k);
    result.assign(problem.m * problem.n, std::numeric_limits<float>::quiet_NaN());
    queue.copy(result, c, dualrt::Sync::blocking);
    row.note = checker.check(result);
    row.verified = row.note.empty();
    return row;
}

void print_cost(const std::vector<vendor_blas::CostRow>& rows, int launches, int repetitions) {
    using dualrt::samples::fixed;
    std::cout << "\nborrowed queue (wrap_queue, Ownership::borrow, around the native handle of "
                 "another dualrt queue) beside dualrt's own; bursts of "
              << launches << " launches, median of " << repetitions << ", alternating\n";
    dualrt::samples::Table table({"measure", "own", "borrowed", "unit", "borrowed slowdown"});
    for (const auto& row : rows)
        table.add({row.measure, fixed(row.own, 3), fixed(row.borrowed, 3), row.unit,
                   fixed(row.slowdown(), 3)});
    table.print(std::cout);
}

int run(const dualrt::samples::Args& args) {
    const dualrt::Device device = dualrt::select(args.selection());
    const auto& info = device.info();
    std::cout << "dualrt " << dualrt::version_string() << " vendor BLAS on dualrt buffers: "
              << dualrt::to_string(info.backend) << " device " << info.index << " '" << info.name
              << "' (" << info.platform << ", driver " << info.driver_version << ")\n";
    std::string why_not;
    const auto vendor = vendor_blas::load_vendor_sgemm(device, why_not);
    if (!vendor) {
        std::cout << "SKIPPED: no vendor BLAS for this device: " << why_not << "\n";
        return skipped_exit_code;
    }
    const matmul::Rung* rung = vendor_blas::best_fitting_rung(info);
    Problem problem;
    problem.m = static_cast<std::size_t>(args.integer("m"));
    problem.n = static_cast<std::size_t>(args.integer("n"));
    problem.k = static_cast<std::size_t>(args.integer("k"));
    std::uint64_t seed = static_cast<std::uint64_t>(args.integer("seed"));
    if (seed == 0) seed = std::random_device{}();
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    problem.a.resize(problem.m * problem.k);
    problem.b.resize(problem.k * problem.n);
    for (auto& v : problem.a) v = dist(engine);
    for (auto& v : problem.b) v = dist(engine);
    const matmul::Checker checker(problem.a, problem.b, problem.m, problem.n, problem.k, 4096,
                                  seed + 1);
    const int warmup = dualrt::samples::warmup_runs(args);
    const int repetitions = dualrt::samples::repetitions(args);
    std::cout << "vendor: " << vendor->describe() << "\n"
              << "C = A * B, fp32, row-major, m " << problem.m << ", n " << problem.n << ", k "
              << problem.k << "; inputs uniform in [-1, 1), seed " << seed << "; warm-up "
              << warmup << ", median of " << repetitions << " timed runs (device events)\n"
              << "checked against the CPU (double): " << checker.describe() << "\n";

    dualrt::Queue queue = device.create_queue();
    auto a = device.alloc<float>(problem.a.size());
    auto b = device.alloc<float>(problem.b.size());
    auto c = device.alloc<float>(problem.m * problem.n);
    queue.copy(a, problem.a);
    queue.copy(b, problem.b);

    const std::string vendor_name = device.backend() == dualrt::Backend::cuda
                                        ? "cuBLAS SGEMM (strict fp32)"
                                        : "CLBlast SGEMM";
    dualrt::samples::LadderReport report("sgemm f32 " + std::to_string(problem.m) + "x" +
                                             std::to_string(problem.n) + "x" +
                                             std::to_string(problem.k),
                                         "GFLOP/s");
    std::vector<float> by_vendor, by_ladder;
    report.add(measure(vendor_name, device, queue, c, problem, checker, warmup, repetitions,
                       [&] { vendor->sgemm(queue, problem.m, problem.n, problem.k, a, b, c); },
                       by_vendor));
    if (rung != nullptr) {
        const dualrt::Kernel kernel = device.kernel(rung->kernel);  // built outside the timing
        RungResult row = measure(rung->title, device, queue, c, problem, checker, warmup,
                                 repetitions,
                                 [&] {
                                     matmul::launch(queue, kernel, *rung, a, b, c, problem.m,
                                                    problem.n, problem.k);
                                 },
                                 by_ladder);
        if (row.verified) {
            row.note = vendor_blas::disagreement(by_vendor, by_ladder, problem.k);
            row.verified = row.note.empty();
            if (row.verified) row.note = "agrees with " + vendor_name;
        }
        report.add(row);
    } else {
        std::cerr << "no rung of the matmul ladder fits this device's work-group limits\n";
    }
    report.add_reference("vendor", vendor_name);
    std::cout << "\n";
    report.print(std::cout);
    dualrt::samples::CsvWriter csv = dualrt::samples::open_ladder_csv(args);
    report.write(csv);

    if (args.flag("borrowed-cost")) {
        const int launches = static_cast<int>(args.integer("launches"));
        print_cost(vendor_blas::measure_borrowed_cost(device, launches, repetitions,
                                                      args.bytes("copy-size")),
                   launches, repetitions);
    }
    return dualrt::samples::finish_ladder("vendor_blas", csv, report.all_verified());
}

}  // namespace

int main(int argc, char** argv) {
    dualrt::samples::Args args(
        "vendor_blas",
        "SGEMM by the vendor BLAS (cuBLAS on CUDA, CLBlast on OpenCL; loaded at run time) on\n"
        "dualrt's buffers and queue, checked against the CPU and the matmul ladder's best rung.\n"
        "Exit code 77: no vendor BLAS for the selected device (the reason is printed).");
    args.add_integer("m", "N", "rows of A and C", 1024, 1, 1 << 16);
    args.add_integer("n", "N", "columns of B and C", 1024, 1, 1 << 16);
    args.add_integer("k", "N", "columns of A, rows of B", 1024, 1, 1 << 16);
    args.add_integer("seed", "N", "seed of the inputs (0: a fresh one, printed)", 0, 0,
                     4294967295LL);
    args.add_flag("borrowed-cost",
                  "also measure launches and copies on a borrowed queue beside dualrt's own");
    args.add_integer("launches", "N", "launches per burst for --borrowed-cost", 10000, 1,
                     10000000);
    args.add_bytes("copy-size", "BYTES", "the large pinned copy of --borrowed-cost", "64M");
    dualrt::samples::add_timing_options(args);
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    try {
        return run(args);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
