// launch_cost: what launching a kernel costs through dualrt beside a plain CUDA / plain OpenCL
// program, on the selected device, with the built-in `empty` kernel (one work-item):
//   enqueue cost   host time per launch over bursts of back-to-back launches, the returned
//                  Events discarded (then a finish, untimed); median of the bursts
//   events kept    the same with every Event kept in a vector: what holding events costs; on
//                  a queue with timing (the default) and on one without (QueueOptions::timing)
//   round trip     one launch and Event::wait(); median of many
// Ratios are dualrt / native time (above 1: dualrt is slower). dualrt and native take turns, one
// round of each burst kind at a time, so that both meet the machine in the same state: measured
// one after the other, the same build's ratios can move by up to 40% between GPU machines, more
// than a change to the code moves them. Both sides make their queues once and run their bursts
// in the same order, each kind after a warm-up burst of its own: a discarded burst on a fresh
// queue right after 10,000 kept events are released reads up to 10% slower on NVIDIA's OpenCL
// than the same burst in the native's order.
#include "options.hpp"
#include "csv.hpp"
#include "native_baseline.hpp"
#include "native_common.hpp"
#include "progress.hpp"
#include "table.hpp"
#include "turns.hpp"

#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using dualrt::samples::fixed;

double microseconds(Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
}

struct LibraryCost {
    double enqueue_us = 0.0;
    double enqueue_kept_us = 0.0;
    double enqueue_kept_untimed_us = 0.0;  // on a queue made without timing
    double round_trip_us = 0.0;
    // fill(out, value, 1) over one work-item: on a whole buffer, and on a view of part of one
    // (OpenCL passes a view as a sub-buffer made for the launch).
    double whole_buffer_us = 0.0;
    double view_us = 0.0;
};

// dualrt's side of the comparison: its queues, kernels and buffers, made once, as the native
// baseline makes its own queues once (a fresh queue per round had dualrt's bursts start on a
// queue whose first launches set it up, while native's ran on queues warmed by earlier rounds).
class Library {
public:
    Library(const dualrt::Device& device, int launches)
        : launches_(launches), queue_(device.create_queue()),
          untimed_(device.create_queue(dualrt::QueueOptions{false})),
          empty_(device.kernel("empty")),  // built here, outside the timing
          fill_(device.kernel("fill")), buffer_(device.alloc<float>(1u << 20)),
          view_(buffer_.view(1u << 16, 1u << 16)) {  // 256 KiB in: aligned for sub-buffers
        kept_.reserve(static_cast<std::size_t>(launches));
    }

    // One round, with the burst kinds in the native baseline's order (NativeBaseline::
    // launch_cost): a warm-up and a timed burst with events discarded, then with events kept
    // (on a queue with timing, then without), then round trips; then the fill launches on a
    // whole buffer and on a view. Each kind starts with a warm-up burst of its own, so that no
    // figure pays for what the kind before it left behind (10,000 events released).
    LibraryCost round() {
        LibraryCost cost;
        burst(false, queue_);  // warm-up
        cost.enqueue_us = burst(false, queue_);
        burst(true, queue_);
        cost.enqueue_kept_us = burst(true, queue_);
        burst(true, untimed_);
        cost.enqueue_kept_untimed_us = burst(true, untimed_);

        const int trips = std::min(launches_, dualrt::bench::max_round_trips_per_repetition);
        for (int i = 0; i < trips; ++i) round_trip();
        std::vector<double> round;
        for (int i = 0; i < trips; ++i) round.push_back(round_trip());
        cost.round_trip_us = dualrt::bench::detail::median(std::move(round));

        buffer_burst(buffer_);  // warm-up
        cost.whole_buffer_us = buffer_burst(buffer_);
        buffer_burst(view_);
        cost.view_us = buffer_burst(view_);
        return cost;
    }

private:
    double burst(bool keep, dualrt::Queue& on) {
        const auto begin = Clock::now();
        if (keep) {
            for (int i = 0; i < launches_; ++i)
                kept_.push_back(on.launch(empty_, global_, local_, 0u));
        } else {
            for (int i = 0; i < launches_; ++i) on.launch(empty_, global_, local_, 0u);
        }
        const auto end = Clock::now();
        on.finish();
        kept_.clear();  // releasing the events is not part of the enqueue cost
        return microseconds(end - begin) / launches_;
    }
    double round_trip() {
        const auto begin = Clock::now();
        queue_.launch(empty_, global_, local_, 0u).wait();
        return microseconds(Clock::now() - begin);
    }
    // fill(out, value, 1) over one work-item.
    double buffer_burst(const dualrt::Buffer<float>& target) {
        const auto begin = Clock::now();
        for (int i = 0; i < launches_; ++i) queue_.launch(fill_, global_, local_, target, 1.0f, 1u);
        const auto end = Clock::now();
        queue_.finish();
        return microseconds(end - begin) / launches_;
    }

    const int launches_;
    // The native baseline's geometry: one work-item.
    const dualrt::Range global_{dualrt::bench::empty_global_size};
    const dualrt::Range local_{dualrt::bench::empty_local_size};
    dualrt::Queue queue_, untimed_;
    const dualrt::Kernel empty_, fill_;
    const dualrt::Buffer<float> buffer_, view_;
    std::vector<dualrt::Event> kept_;
};

int run(const dualrt::samples::Args& args) {
    const int launches = static_cast<int>(args.integer("launches"));
    const int repetitions = static_cast<int>(args.integer("repetitions"));
    const dualrt::Device device = dualrt::select(args.selection());
    const auto& info = device.info();
    const auto native = dualrt::bench::load_native_baseline(device);
    dualrt::samples::CsvWriter csv;
    if (!args.csv_path().empty())
        csv = dualrt::samples::CsvWriter(
            args.csv_path(), {"measure", "dualrt_us", "native_us", "ratio", "native_queue",
                              "launches", "repetitions", "backend", "device"});

    std::cout << "dualrt " << dualrt::version_string() << " launch cost on "
              << dualrt::to_string(info.backend) << " device " << info.index << " '" << info.name
              << "' (" << info.platform << ", driver " << info.driver_version << ")\n"
              << "native baseline: " << native->describe() << "\n"
              << "kernel 'empty', " << dualrt::bench::empty_global_size << " work-item; bursts of "
              << launches << " launches, median of " << repetitions << " bursts; round trips: "
              << "median of " << repetitions << " medians of "
              << std::min(launches, dualrt::bench::max_round_trips_per_repetition)
              << "; dualrt and native in turns, a burst of each kind per round\n\n";

    // Rounds of one burst (one set of round trips) each, dualrt and native in turns, the order
    // swapped every round; every figure is the median over the rounds.
    dualrt::samples::Progress progress(args.progress_mode(), 2 * std::size_t(repetitions));
    Library library_side(device, launches);
    std::vector<LibraryCost> dualrt_rounds;
    std::vector<dualrt::bench::LaunchCost> native_rounds;
    for (int round = 0; round < repetitions; ++round) {
        const std::string of =
            " (round " + std::to_string(round + 1) + " of " + std::to_string(repetitions) + ")";
        dualrt::samples::in_turns(
            round,
            [&] {
                progress.step("dualrt launches" + of);
                dualrt_rounds.push_back(library_side.round());
            },
            [&] {
                progress.step("native launches" + of);
                native_rounds.push_back(native->launch_cost(launches, 1));
            });
    }
    progress.clear();
    using dualrt::bench::detail::median_of;
    LibraryCost library;
    for (auto field : {&LibraryCost::enqueue_us, &LibraryCost::enqueue_kept_us,
                       &LibraryCost::enqueue_kept_untimed_us, &LibraryCost::round_trip_us,
                       &LibraryCost::whole_buffer_us, &LibraryCost::view_us})
        library.*field = median_of(dualrt_rounds, field);
    dualrt::bench::LaunchCost plain;
    for (auto field : {&dualrt::bench::LaunchCost::enqueue_us,
                       &dualrt::bench::LaunchCost::round_trip_us,
                       &dualrt::bench::LaunchCost::profiling_enqueue_us,
                       &dualrt::bench::LaunchCost::profiling_round_trip_us,
                       &dualrt::bench::LaunchCost::kept_enqueue_us,
                       &dualrt::bench::LaunchCost::profiling_kept_enqueue_us})
        plain.*field = median_of(native_rounds, field);

    dualrt::samples::Table table({"measure", "dualrt us", "native us", "dualrt/native",
                                  "native queue"});
    const auto add = [&](const std::string& measure, double mine, double theirs,
                         const std::string& queue) {
        const double ratio = theirs > 0.0 ? mine / theirs : 0.0;
        table.add({measure, fixed(mine, 3), fixed(theirs, 3), fixed(ratio, 3), queue});
        csv.row({measure, fixed(mine, 4), fixed(theirs, 4), fixed(ratio, 4), queue,
                 std::to_string(launches), std::to_string(repetitions),
                 dualrt::to_string(info.backend), info.name});
    };
    add("enqueue, events discarded", library.enqueue_us, plain.enqueue_us, "plain");
    add("enqueue, events kept", library.enqueue_kept_us, plain.enqueue_us, "plain");
    add("enqueue, events kept, queue without timing", library.enqueue_kept_untimed_us,
        plain.enqueue_us, "plain");
    add("round trip (launch + wait)", library.round_trip_us, plain.round_trip_us, "plain");
    // OpenCL: dualrt's queues profile (Event::elapsed_ms needs it), so show that baseline too.
    if (plain.profiling_enqueue_us > 0.0) {
        add("enqueue, events discarded", library.enqueue_us, plain.profiling_enqueue_us,
            "profiling");
        add("enqueue, events kept", library.enqueue_kept_us, plain.kept_enqueue_us,
            "plain, own events kept");
        add("enqueue, events kept", library.enqueue_kept_us, plain.profiling_kept_enqueue_us,
            "profiling, own events kept");
        add("enqueue, events kept, queue without timing", library.enqueue_kept_untimed_us,
            plain.kept_enqueue_us, "plain, own events kept");
        add("round trip (launch + wait)", library.round_trip_us, plain.profiling_round_trip_us,
            "profiling");
    }
    // Both sides dualrt: what passing part of a buffer costs over passing all of it.
    add("fill launch on a buffer view", library.view_us, library.whole_buffer_us,
        "dualrt, whole buffer");
    table.print(std::cout);
    if (csv.enabled()) std::cout << "rows written to " << csv.path() << "\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    dualrt::samples::Args args(
        "launch_cost",
        "Kernel launch cost of dualrt beside plain CUDA / plain OpenCL on one device: enqueue\n"
        "cost per launch (events discarded, and kept) and round trip (launch + wait).");
    args.add_integer("launches", "N", "launches per timed burst", 10000, 1, 10000000);
    args.add_integer("repetitions", "N", "timed bursts per figure (median), after one warm-up",
                     20, 1, 100000);
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    try {
        return run(args);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
