// replay_cost: what a recording saves on a chain of small launches, beside the same written by
// hand, on the selected device. Batches of launches of the built-in `empty` kernel (one
// work-item), each timed on the host from its first enqueue until the queue has run it, per
// launch; median of the batches:
//   plain     the launches enqueued one by one (dualrt: Queue::launch; native: cuLaunchKernel /
//             clEnqueueNDRangeKernel with no event)
//   replay    the same launches recorded once and replayed as one unit (dualrt: Queue::replay;
//             native: a CUDA graph, an OpenCL command buffer where the device has one)
// and the same two ways for an iterative stencil: `--steps` Jacobi sweeps (jacobi_rows) over a
// small grid, ping-ponging between two device grids, per sweep, their results compared bit for
// bit. Both sides use a queue without profiling, as a plain program does. dualrt and native take
// turns round by round, so both meet the machine in the same state (launch_cost.cpp says why).
#include "options.hpp"
#include "csv.hpp"
#include "native_baseline.hpp"
#include "native_common.hpp"
#include "progress.hpp"
#include "table.hpp"
#include "turns.hpp"

#include <dualrt/dualrt.hpp>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using dualrt::samples::fixed;

double microseconds(Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
}

// dualrt's side: its queue, kernel and recording, made once.
class Library {
public:
    Library(const dualrt::Device& device, int launches)
        : launches_(launches), queue_(device.create_queue(dualrt::QueueOptions{false})),
          empty_(device.kernel("empty")) {
        queue_.begin_recording();
        launch_all();
        recording_ = queue_.end_recording();
    }

    // One round: a warm-up and a timed batch of each kind, plain first (the native's order).
    dualrt::bench::ReplayCost round() {
        dualrt::bench::ReplayCost cost;
        const auto plain = [&] { launch_all(); };
        const auto replay = [&] { queue_.replay(recording_); };
        batch(plain, cost.plain_enqueue_us, cost.plain_us);
        batch(plain, cost.plain_enqueue_us, cost.plain_us);
        batch(replay, cost.replay_enqueue_us, cost.replay_us);
        batch(replay, cost.replay_enqueue_us, cost.replay_us);
        return cost;
    }
    dualrt::RecordingPath path() const { return recording_.path(); }

private:
    void launch_all() {
        for (int i = 0; i < launches_; ++i) queue_.launch(empty_, global_, local_, 0u);
    }
    template <typename Enqueue>
    void batch(Enqueue&& enqueue, double& enqueue_us, double& total_us) {
        const auto begin = Clock::now();
        enqueue();
        const auto enqueued = Clock::now();
        queue_.finish();
        enqueue_us = microseconds(enqueued - begin) / launches_;
        total_us = microseconds(Clock::now() - begin) / launches_;
    }

    const int launches_;
    const dualrt::Range global_{dualrt::bench::empty_global_size};
    const dualrt::Range local_{dualrt::bench::empty_local_size};
    dualrt::Queue queue_;
    const dualrt::Kernel empty_;
    dualrt::Recording recording_;
};

// dualrt's side of the stencil: two device grids, the sweeps launched and recorded.
class LibraryJacobi {
public:
    LibraryJacobi(const dualrt::Device& device, const dualrt::bench::JacobiJob& job)
        : job_(job), queue_(device.create_queue(dualrt::QueueOptions{false})),
          jacobi_(device.kernel("jacobi_rows")),
          grids_{device.alloc<float>(cells()), device.alloc<float>(cells())} {
        queue_.begin_recording();
        sweeps();
        recording_ = queue_.end_recording();
    }

    // One round as the native's: plain batches, then replayed ones, each after a warm-up.
    // `result` receives the plain sweeps' grid, `replayed` the replay's.
    dualrt::bench::ReplayCost round(std::vector<float>& result, std::vector<float>& replayed) {
        dualrt::bench::ReplayCost cost;
        const auto plain = [&] { sweeps(); };
        const auto replay = [&] { queue_.replay(recording_); };
        batch(plain, cost.plain_enqueue_us, cost.plain_us);
        batch(plain, cost.plain_enqueue_us, cost.plain_us);
        queue_.copy(result, grids_[0], dualrt::Sync::blocking);
        batch(replay, cost.replay_enqueue_us, cost.replay_us);
        batch(replay, cost.replay_enqueue_us, cost.replay_us);
        queue_.copy(replayed, grids_[0], dualrt::Sync::blocking);
        return cost;
    }

private:
    std::size_t cells() const { return std::size_t{job_.width} * job_.height; }
    void sweeps() {
        const std::uint32_t rows = job_.height - 2;
        const dualrt::Range global{job_.width, rows};
        const dualrt::Range local{dualrt::bench::jacobi_local[0], dualrt::bench::jacobi_local[1]};
        for (int step = 0; step < job_.steps; ++step)
            queue_.launch(jacobi_, global, local, grids_[step % 2], grids_[1 - step % 2],
                          job_.width, 1u, rows);
    }
    template <typename Enqueue>
    void batch(Enqueue&& enqueue, double& enqueue_us, double& total_us) {
        const std::vector<float> grid(job_.grid, job_.grid + cells());
        for (auto& g : grids_) queue_.copy(g, grid, dualrt::Sync::blocking);
        const auto begin = Clock::now();
        enqueue();
        const auto enqueued = Clock::now();
        queue_.finish();
        enqueue_us = microseconds(enqueued - begin) / job_.steps;
        total_us = microseconds(Clock::now() - begin) / job_.steps;
    }

    const dualrt::bench::JacobiJob job_;
    dualrt::Queue queue_;
    const dualrt::Kernel jacobi_;
    dualrt::Buffer<float> grids_[2];
    dualrt::Recording recording_;
};

int run(const dualrt::samples::Args& args) {
    const int launches = static_cast<int>(args.integer("launches"));
    const int repetitions = static_cast<int>(args.integer("repetitions"));
    const dualrt::Device device = dualrt::select(args.selection());
    const auto& info = device.info();
    const auto native = dualrt::bench::load_native_baseline(device);
    dualrt::samples::CsvWriter csv;
    if (!args.csv_path().empty())
        csv = dualrt::samples::CsvWriter(args.csv_path(),
                                         {"measure", "dualrt_us", "native_us", "ratio",
                                          "launches", "repetitions", "backend", "device"});

    Library library_side(device, launches);
    std::cout << "dualrt " << dualrt::version_string() << " replay cost on "
              << dualrt::to_string(info.backend) << " device " << info.index << " '" << info.name
              << "' (" << info.platform << ", driver " << info.driver_version << ")\n"
              << "dualrt records as a " << dualrt::to_string(library_side.path())
              << "; native baseline: " << native->describe() << "\n"
              << "kernel 'empty', one work-item; batches of " << launches
              << " launches, host time from the first enqueue until the queue has run them, per "
                 "launch; median of "
              << repetitions << " rounds, dualrt and native in turns\n";

    dualrt::samples::Progress progress(args.progress_mode(), 2 * std::size_t(repetitions));
    std::vector<dualrt::bench::ReplayCost> dualrt_rounds, native_rounds;
    for (int round = 0; round < repetitions; ++round) {
        const std::string of =
            " (round " + std::to_string(round + 1) + " of " + std::to_string(repetitions) + ")";
        dualrt::samples::in_turns(
            round,
            [&] {
                progress.step("dualrt" + of);
                dualrt_rounds.push_back(library_side.round());
            },
            [&] {
                progress.step("native" + of);
                native_rounds.push_back(native->replay_cost(launches, 1));
            });
    }
    progress.clear();
    using dualrt::bench::detail::median_of;
    using Cost = dualrt::bench::ReplayCost;
    Cost mine, theirs;
    for (auto field : {&Cost::plain_enqueue_us, &Cost::plain_us, &Cost::replay_enqueue_us,
                       &Cost::replay_us}) {
        mine.*field = median_of(dualrt_rounds, field);
        theirs.*field = median_of(native_rounds, field);
    }
    const std::string native_replay = native_rounds.front().replay;
    std::cout << "native replay: "
              << (native_replay.empty() ? "none on this device" : native_replay) << "\n\n";

    dualrt::samples::Table table({"measure", "dualrt us", "native us", "dualrt/native"});
    const auto add = [&](const std::string& measure, double a, double b) {
        const bool both = a > 0.0 && b > 0.0;
        table.add({measure, fixed(a, 3), b > 0.0 ? fixed(b, 3) : "-",
                   both ? fixed(a / b, 3) : "-"});
        csv.row({measure, fixed(a, 4), fixed(b, 4), both ? fixed(a / b, 4) : "",
                 std::to_string(launches), std::to_string(repetitions),
                 dualrt::to_string(info.backend), info.name});
    };
    add("plain launches, enqueue", mine.plain_enqueue_us, theirs.plain_enqueue_us);
    add("plain launches, until run", mine.plain_us, theirs.plain_us);
    add("replay, enqueue", mine.replay_enqueue_us, theirs.replay_enqueue_us);
    add("replay, until run", mine.replay_us, theirs.replay_us);
    // What a replay costs against the driver's own launches one by one (the target where the
    // driver has no replay of its own: NVIDIA's OpenCL).
    add("dualrt replay against native plain, enqueue", mine.replay_enqueue_us,
        theirs.plain_enqueue_us);
    add("dualrt replay against native plain, until run", mine.replay_us, theirs.plain_us);
    table.print(std::cout);
    std::cout << "replay over plain launches, until run: dualrt "
              << fixed(mine.plain_us / mine.replay_us, 2) << "x faster";
    if (theirs.replay_us > 0.0)
        std::cout << ", native " << fixed(theirs.plain_us / theirs.replay_us, 2) << "x faster";
    std::cout << "\n";

    // The stencil: the same rounds, the grids' bits compared.
    const auto side = static_cast<std::uint32_t>(args.integer("grid"));
    if (side % dualrt::bench::jacobi_local[0] != 0 || args.integer("steps") % 2 != 0) {
        std::cerr << "error: --grid must be a multiple of " << dualrt::bench::jacobi_local[0]
                  << " and --steps even (the sweeps end in the first grid)\n";
        return 2;
    }
    dualrt::bench::JacobiJob job;
    std::vector<float> grid(std::size_t{side} * (side + 2));
    std::mt19937 random(7);
    std::uniform_real_distribution<float> temperature(0.0f, 100.0f);
    for (float& value : grid) value = temperature(random);
    std::vector<float> native_grid(grid.size()), plain_grid(grid.size()),
        replayed_grid(grid.size());
    job.grid = grid.data();
    job.result = native_grid.data();
    job.width = side;
    job.height = side + 2;
    job.steps = static_cast<int>(args.integer("steps"));
    job.repetitions = 1;
    LibraryJacobi jacobi(device, job);
    std::vector<dualrt::bench::ReplayCost> dualrt_sweeps, native_sweeps;
    for (int round = 0; round < repetitions; ++round)
        dualrt::samples::in_turns(
            round, [&] { dualrt_sweeps.push_back(jacobi.round(plain_grid, replayed_grid)); },
            [&] { native_sweeps.push_back(native->jacobi_replay_cost(job)); });
    for (auto field : {&Cost::plain_enqueue_us, &Cost::plain_us, &Cost::replay_enqueue_us,
                       &Cost::replay_us}) {
        mine.*field = median_of(dualrt_sweeps, field);
        theirs.*field = median_of(native_sweeps, field);
    }
    const bool same = plain_grid == native_grid && replayed_grid == native_grid;
    std::cout << "\n" << job.steps << " Jacobi sweeps of a " << side << " x " << side + 2
              << " grid, per sweep; the grids after the sweeps "
              << (same ? "equal bit for bit (dualrt plain, dualrt replayed, native)"
                       : "DIFFER between dualrt and native")
              << "\n";
    dualrt::samples::Table sweeps_table({"measure", "dualrt us", "native us", "dualrt/native"});
    const auto add_sweep = [&](const std::string& measure, double a, double b) {
        const bool both = a > 0.0 && b > 0.0;
        sweeps_table.add({measure, fixed(a, 3), b > 0.0 ? fixed(b, 3) : "-",
                          both ? fixed(a / b, 3) : "-"});
        csv.row({"jacobi: " + measure, fixed(a, 4), fixed(b, 4), both ? fixed(a / b, 4) : "",
                 std::to_string(job.steps), std::to_string(repetitions),
                 dualrt::to_string(info.backend), info.name});
    };
    add_sweep("plain sweeps, until run", mine.plain_us, theirs.plain_us);
    add_sweep("replay, until run", mine.replay_us, theirs.replay_us);
    add_sweep("dualrt replay against native plain, until run", mine.replay_us, theirs.plain_us);
    sweeps_table.print(std::cout);
    if (!same) return 1;
    if (csv.enabled()) std::cout << "rows written to " << csv.path() << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    dualrt::samples::Args args(
        "replay_cost",
        "What replaying recorded launches saves over launching them one by one, dualrt beside\n"
        "plain CUDA (graphs) / plain OpenCL (command buffers where the device has them).");
    args.add_integer("launches", "N", "launches per batch (and per recording)", 1000, 1, 1000000);
    args.add_integer("repetitions", "N", "timed rounds (median), each after a warm-up", 20, 1,
                     100000);
    args.add_integer("steps", "N", "Jacobi sweeps per batch of the stencil (even)", 100, 2,
                     100000);
    args.add_integer("grid", "N", "the stencil grid's width, N x (N + 2) floats (a multiple of "
                                  "64)", 256, 64, 16384);
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    try {
        return run(args);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
