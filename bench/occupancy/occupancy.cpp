// occupancy: the work-group size sweep. On every backend of one GPU, two kernels at work-group
// sizes 32 to 1024 (and the size Kernel::suggest_group_size() picks, when it is none of them):
//   copy_f32   memory-bound (GB/s): does the group size matter when memory is the limit?
//   fma_chain  compute-bound (GFLOP/s): small groups cap how many warps an SM holds
// Beside each rate, what Kernel::occupancy() reports for that size: work-groups resident per
// compute unit and the share of the compute unit's work-items they fill (CUDA; OpenCL has no
// such query), and the preferred multiple. Sizes above a kernel's limit are skipped, saying so.
// Every size's output is checked in full against the CPU reference; a mismatch makes the exit
// code 1.
#include "ladder.hpp"
#include "report.hpp"
#include "sweep.hpp"
#include "workloads.hpp"

#include <dualrt/dualrt.hpp>

#include <cstdint>
#include <exception>
#include <iostream>
#include <memory>
#include <vector>

namespace {

namespace samples = dualrt::samples;
namespace occupancy = dualrt::samples::occupancy;

int run(const samples::Args& args) {
    const auto devices = samples::ladder_devices(args, std::cerr);
    const int warmup = samples::warmup_runs(args), repetitions = samples::repetitions(args);
    std::cout << "occupancy: work-group size sweep; median of " << repetitions << " runs after "
              << warmup << " warm-up\n";
    for (const auto& device : devices) {
        const auto& info = device.info();
        std::cout << "  " << dualrt::to_string(info.backend) << " device " << info.index << " '"
                  << info.name << "' (" << info.platform << "), " << info.compute_units
                  << " compute units\n";
    }

    std::vector<std::unique_ptr<occupancy::Workload>> workloads;
    workloads.push_back(std::make_unique<occupancy::CopyWorkload>(
        static_cast<std::size_t>(args.integer("elements"))));
    workloads.push_back(std::make_unique<occupancy::FmaWorkload>(
        static_cast<std::size_t>(args.integer("fma-elements")),
        static_cast<std::uint32_t>(args.integer("iterations"))));

    // Every kernel is built and its sizes chosen first, so that the progress count is exact.
    std::vector<occupancy::KernelSweeps> sweeps;
    std::size_t steps = 0;
    for (const auto& workload : workloads) {
        occupancy::KernelSweeps each;
        each.workload = workload.get();
        for (const auto& device : devices) {
            each.plans.push_back(occupancy::plan_sweep(device, *workload));
            steps += each.plans.back().sizes.size();
        }
        sweeps.push_back(std::move(each));
    }

    samples::CsvWriter csv = samples::open_ladder_csv(args);
    samples::Progress progress(args.progress_mode(), steps);
    bool all_verified = true;
    for (std::size_t w = 0; w < workloads.size(); ++w) {
        occupancy::KernelSweeps& each = sweeps[w];
        for (const auto& plan : each.plans) {
            dualrt::Queue queue = plan.device.create_queue();
            workloads[w]->prepare(plan.device, queue);
            each.rows.push_back(
                occupancy::run_sweep(plan, *workloads[w], queue, warmup, repetitions, progress));
            workloads[w]->release();
        }
        progress.clear();
        occupancy::print(std::cout, each);
        occupancy::write(csv, each);
        all_verified = all_verified && occupancy::all_verified(each);
    }
    return samples::finish_ladder("occupancy", csv, all_verified);
}

}  // namespace

int main(int argc, char** argv) {
    samples::Args args(
        "occupancy",
        "The work-group size sweep: a memory-bound copy and a compute-bound FMA chain at\n"
        "work-group sizes 32 to 1024 on every backend of one GPU, with what\n"
        "Kernel::occupancy() reports per size and the size Kernel::suggest_group_size() picks.\n"
        "Every output is checked against the CPU reference.");
    samples::add_timing_options(args);
    args.add_integer("elements", "N", "floats copied by copy_f32 (2^26: 256 MiB per buffer)",
                     1LL << 26, 1, 1LL << 30);
    args.add_integer("fma-elements", "N", "work-items of fma_chain", 1LL << 24, 1, 1LL << 30);
    args.add_integer("iterations", "N",
                     "FMAs per chain and work-item in fma_chain (4 chains; the defaults make "
                     "137 GFLOP a run, some 2 ms at an H100's FP32 peak)",
                     1024, 1, 1LL << 20);
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    try {
        return run(args);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
