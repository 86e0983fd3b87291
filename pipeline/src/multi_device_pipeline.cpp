#include "multi_device_pipeline.hpp"

#include "backend/backend_access.hpp"
#include "multi/chunk_dealer.hpp"
#include "run/device_report.hpp"
#include "run/run_checks.hpp"
#include "run/run_report.hpp"
#include "run/run_timing.hpp"
#include "support/raise.hpp"
#include "tune/timed_chunks.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <numeric>

namespace dualrt::detail {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

std::size_t sum_counts(const std::vector<ChunkExtent>& chunks) {
    std::size_t sum = 0;
    for (const ChunkExtent& chunk : chunks) sum += chunk.count;
    return sum;
}

// What one device did in one run.
struct DeviceRun {
    std::vector<ChunkExtent> extents;  // its chunks, in the order it took them
    Clock::time_point started;
    std::exception_ptr error;
};

// The error of device `label`, rethrown as a dualrt::Error that names it.
[[noreturn]] void rethrow_naming(const std::exception_ptr& error, const std::string& label) {
    const std::string where = "on " + label + " of a Pipeline over several devices";
    try {
        std::rethrow_exception(error);
    } catch (const Error& e) {
        ErrorInfo info = e.info();
        info.context = info.context.empty() ? where : info.context + "; " + where;
        raise(std::move(info));
    } catch (const std::exception& e) {
        ErrorInfo info;
        info.errc = Errc::backend_failure;
        info.backend = "dualrt";
        info.call = "Pipeline::run";
        info.detail = std::string("the compute function threw: ") + e.what();
        info.context = where;
        raise(std::move(info));
    }
}

// Why a run left all devices but the fastest out, for the report.
std::string why_alone(const MixChoice& mix) {
    if (mix.measuring()) return "measured alone, to compare with every device";
    char text[160];
    std::snprintf(text, sizeof text,
                  "earlier runs reached %.0f elements/ms with it alone, %.0f with every device",
                  mix.alone(), mix.together());
    return text;
}

}  // namespace

void check_device_list(const std::vector<Device>& devices, const char* operation) {
    if (devices.empty())
        raise_argument(operation, "the list of devices is empty; expected at least one Device "
                                  "(dualrt::devices() lists them all)");
    for (std::size_t d = 0; d < devices.size(); ++d) {
        if (!devices[d].valid())
            raise_argument(operation, "device " + std::to_string(d) + " of the list is an empty "
                                      "Device; expected devices from dualrt::devices()");
        for (std::size_t e = 0; e < d; ++e)
            if (devices[e] == devices[d])
                raise_argument(operation, device_label(devices[d].info()) + " is listed twice "
                               "(at " + std::to_string(e) + " and " + std::to_string(d) +
                               "); expected each device once");
    }
}

MultiDevicePipeline::MultiDevicePipeline(std::vector<Device> devices,
                                         std::unique_ptr<OneDevicePipeline> first)
    : devices_(std::move(devices)),
      options_(first->options),
      mode_(first->mode),
      depth_(first->depth) {
    drivers_.resize(devices_.size());
    for (std::size_t d = 0; d < devices_.size(); ++d) {
        Driver& driver = drivers_[d];
        driver.one = d == 0 ? std::move(first)
                            : std::make_unique<OneDevicePipeline>(devices_[d], options_, mode_,
                                                                  depth_);
        driver.label = device_label(devices_[d].info());
        driver.track = std::string(to_string(devices_[d].backend())) + " " +
                       std::to_string(devices_[d].info().index);
    }
}

MultiDevicePipeline::~MultiDevicePipeline() = default;

PipelineReport MultiDevicePipeline::run(const HostSide* inputs, std::size_t input_count,
                                  const HostSide* outputs, std::size_t output_count,
                                  const Halo& halo, const ChunkFunction& compute,
                                  Clock::time_point started) {
    const char* op = "Pipeline::run";
    const RunArrays arrays =
        checked_arrays(inputs, input_count, outputs, output_count, halo, options_.in_place, op);
    RunFacts facts;
    facts.mode = mode_;
    facts.depth = depth_;
    facts.input_arrays = input_count;
    facts.output_arrays = output_count;
    for (const Driver& driver : drivers_) facts.queues += driver.one->queues.queues.size();
    if (arrays.count == 0) {
        PipelineReport empty = make_report(facts, {}, {}, {}, 0);
        empty.chunking = "empty arrays: nothing to run";
        return empty;
    }

    // The fastest device as measured so far.
    const std::string key = layout_key(arrays);
    std::vector<double> prior_rates;
    std::size_t fastest = 0;
    for (std::size_t d = 0; d < drivers_.size(); ++d) {
        prior_rates.push_back(drivers_[d].rates[key]);
        if (prior_rates[d] > prior_rates[fastest]) fastest = d;
    }
    MixChoice& mix = mixes_[key];
    const bool alone = mix.fastest_alone();
    PipelineReport report =
        alone ? run_alone(fastest, key, arrays, halo, compute, facts, why_alone(mix), started)
              : run_together(key, prior_rates, arrays, halo, compute, facts, started);
    mix.learn(alone, static_cast<double>(arrays.count) / report.host_ms);
    return report;
}

PipelineReport MultiDevicePipeline::run_together(const std::string& key,
                                           const std::vector<double>& prior_rates,
                                           const RunArrays& arrays, const Halo& halo,
                                           const ChunkFunction& compute, const RunFacts& facts,
                                           Clock::time_point started) {
    const char* op = "Pipeline::run";
    // Each device's view of the arrays: another device's HostBuffer registered with it, or
    // staged where its driver refuses (as_seen_by). The plan cuts chunks small enough to share
    // out.
    std::vector<RunArrays> seen;
    for (const Driver& driver : drivers_)
        seen.push_back(as_seen_by(arrays, *backend_of(driver.one->device)));
    // Chunks are capped for staging if any device stages: its rings are sized by the plan.
    const bool staged = std::any_of(seen.begin(), seen.end(),
                                    [](const RunArrays& view) { return any_staged(view); });
    const std::size_t staging_slots = drivers_.front().one->staging_slots();  // the same on all
    // Each device on the queues its own runs of the layout chose, as a Pipeline of that device
    // alone would run (with four lanes, a GPU inside a run over several devices moved its share
    // slower than alone: lane_choice.hpp).
    const PlanDecision plan = drivers_.front().one->planner.plan_dealt(
        arrays, halo, drivers_.size(), staged, op);
    std::vector<QueueUse> uses;
    std::vector<std::string> fewer_lanes_why;  // as chosen before this run is learned from
    for (const Driver& driver : drivers_) {
        uses.push_back(driver.one->planner.dealt_queues(arrays, plan.sizes));
        fewer_lanes_why.push_back(driver.one->planner.describe(uses.back(), arrays));
    }
    const std::vector<ChunkExtent> extents = extents_of(plan.sizes);

    // Every device gets buffers for the largest chunk, as a Pipeline of one device does.
    for (std::size_t d = 0; d < drivers_.size(); ++d)
        drivers_[d].one->ensure_buffers(seen[d], plan.sizes, halo);

    // The run: each device on its own thread (DeviceThreads; the first on the calling one).
    // Pieces split off chunks for devices of unknown speed are whole rows, and no smaller than
    // the halo's reach.
    const std::size_t granule = halo.row_width();
    const std::size_t reach = std::max<std::size_t>(1, std::max(halo.before(), halo.after()));
    ChunkDealer dealer(extents, prior_rates, granule,
                       (reach + granule - 1) / granule * granule);
    const std::size_t n = drivers_.size();
    std::vector<DeviceRun> runs(n);
    std::vector<std::unique_ptr<DealtChunks>> sources;
    std::vector<std::unique_ptr<RunTiming>> timings;
    std::vector<OneDevicePipeline::Lanes> used;  // each device's queues and slots this run
    std::vector<std::unique_ptr<ChunkScheduler>> schedulers;
    std::vector<ChunkFunction> computes(n);
    std::mutex failure_mutex;
    std::size_t first_failure = n;
    used.reserve(n);  // the schedulers keep references into it
    for (std::size_t d = 0; d < n; ++d) {
        OneDevicePipeline& one = *drivers_[d].one;
        used.push_back(one.lanes_of(uses[d]));
        sources.push_back(std::make_unique<DealtChunks>(dealer, d));
        // Room for every chunk a device may take: the plan's, and the pieces split off them for
        // devices of unknown speed (one each, rarely two).
        timings.push_back(std::make_unique<RunTiming>(
            dealt_timed_chunks(extents.size() + 2 * n, options_.timing), uses[d].mode));
        const DealtChunks& source = *sources[d];
        computes[d] = [&compute, &source, d](const ChunkViews& views) {
            ChunkViews placed = views;
            placed.index = source.global_indices()[views.index];
            placed.device_index = d;
            compute(placed);
        };
        schedulers.push_back(std::make_unique<ChunkScheduler>(
            used[d].queues, used[d].slots, one.input_staging, one.output_staging, staging_slots,
            seen[d], *timings[d], computes[d]));
    }
    // Each device's report, as a Pipeline of that device alone makes it, and what it teaches,
    // made on the device's own thread as soon as its part is done.
    std::vector<DeviceOutcome> outcomes(n);
    const auto drive = [&](std::size_t d) {
        runs[d].started = Clock::now();
        try {
            schedulers[d]->run(*sources[d], runs[d].extents);
            outcomes[d] = learn_from(d, key, arrays, facts, uses[d], used[d], *timings[d],
                                     runs[d].extents);
            outcomes[d].lanes = fewer_lanes_why[d];
        } catch (...) {
            runs[d].error = std::current_exception();
            dealer.stop();
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (first_failure == n) first_failure = d;
        }
    };
    if (!threads_) threads_ = std::make_unique<DeviceThreads>(n);
    threads_->run_each(drive);
    if (first_failure < n) rethrow_naming(runs[first_failure].error, drivers_[first_failure].label);

    const auto first_start = std::min_element(runs.begin(), runs.end(), [](auto& a, auto& b) {
                                 return a.started < b.started;
                             })->started;
    RunFacts run_facts = facts;
    run_facts.queues = 0;
    for (const OneDevicePipeline::Lanes& lanes_used : used)
        run_facts.queues += lanes_used.queues.queues.size();
    run_facts.depth = 0;
    for (const QueueUse& use : uses)
        run_facts.depth = std::max(run_facts.depth, use.in_flight);
    const bool one_mode = std::all_of(uses.begin(), uses.end(), [&](const auto& use) {
        return use.mode == uses.front().mode;
    });
    run_facts.mode = one_mode ? uses.front().mode : mode_;  // the devices' mode, where shared
    PipelineReport total = make_report(run_facts, dealer.dealt(), {}, {}, 0);
    DeviceReportMerger merger(total);
    std::string fewer_lanes;  // the devices not on all their lanes, for the report
    for (std::size_t d = 0; d < n; ++d) {
        Driver& driver = drivers_[d];
        if (!outcomes[d].lanes.empty())
            fewer_lanes += ", " + driver.track + " " + outcomes[d].lanes;
        DeviceShare share;
        share.index = d;
        share.label = driver.label;
        share.track = driver.track;
        share.report = &outcomes[d].report;
        share.timing = &outcomes[d].timing;
        share.run_index = &sources[d]->global_indices();
        share.start_ms = ms_between(first_start, runs[d].started);
        share.device_bytes = driver.one->slots.device_bytes();
        share.staged_input = driver.one->input_staging.any();
        share.staged_output = driver.one->output_staging.any();
        merger.add(share);
    }
    merger.finish(arrays.count,
                  options_.timing == PipelineTiming::every_chunk
                      ? "every stage of every chunk timed (on every device)"
                      : "stages timed on chunks 1-" + std::to_string(dealt_window) +
                            " of every " + std::to_string(dealt_period) +
                            " of each device; the others' estimated from each device's stage "
                            "model");
    total.chunking =
        plan.how + ", dealt to " + std::to_string(n) + " devices as each was ready" + fewer_lanes;
    total.host_ms = ms_between(started, Clock::now());
    return total;
}

MultiDevicePipeline::DeviceOutcome MultiDevicePipeline::learn_from(
    std::size_t d, const std::string& key, const RunArrays& arrays, const RunFacts& facts,
    const QueueUse& use, const OneDevicePipeline::Lanes& used, RunTiming& timing,
    const std::vector<ChunkExtent>& mine) {
    Driver& driver = drivers_[d];
    Planner& planner = driver.one->planner;
    DeviceOutcome outcome;
    outcome.timing = timing.resolve(mine);
    RunRecord record{mine, outcome.timing};
    record.whole_run = false;
    planner.learn(arrays, record);
    RunFacts own_facts = facts;
    own_facts.mode = use.mode;
    own_facts.queues = used.queues.queues.size();
    own_facts.depth = used.slots.size();
    const Planner::Fitted fitted = planner.fit(arrays);
    outcome.report =
        make_report(own_facts, mine, outcome.timing, fitted.models, fitted.device_samples);
    if (outcome.report.measured_ms > 0.0)
        driver.rates[key] = static_cast<double>(sum_counts(mine)) / outcome.report.measured_ms;
    return outcome;
}

PipelineReport MultiDevicePipeline::run_alone(std::size_t d, const std::string& key,
                                        const RunArrays& arrays, const Halo& halo,
                                        const ChunkFunction& compute, const RunFacts& facts,
                                        const std::string& why, Clock::time_point started) {
    Driver& driver = drivers_[d];
    const ChunkFunction placed = [&compute, d](const ChunkViews& views) {
        ChunkViews on_device = views;
        on_device.device_index = d;
        compute(on_device);
    };
    ResolvedTiming timing;
    PipelineReport own;
    try {
        own = driver.one->run(arrays, halo, placed, started, &timing);
    } catch (...) {
        rethrow_naming(std::current_exception(), driver.label);
    }
    if (own.measured_ms > 0.0)
        driver.rates[key] = static_cast<double>(arrays.count) / own.measured_ms;

    // The report of a run over several devices: the others' rows are empty (their tracks too).
    PipelineReport total = make_report(facts, extents_of(own.chunk_sizes), {}, {}, 0);
    std::vector<std::size_t> run_index(own.chunks);
    std::iota(run_index.begin(), run_index.end(), std::size_t{0});
    ResolvedTiming idle;
    idle.timeline.tracks = timing.timeline.tracks;
    const PipelineReport idle_report = make_report(facts, {}, idle, {}, 0);
    DeviceReportMerger merger(total);
    for (std::size_t e = 0; e < drivers_.size(); ++e) {
        DeviceShare share;
        share.index = e;
        share.label = drivers_[e].label;
        share.track = drivers_[e].track;
        share.report = e == d ? &own : &idle_report;
        share.timing = e == d ? &timing : &idle;
        share.run_index = &run_index;
        share.device_bytes = drivers_[e].one->slots.device_bytes();
        share.staged_input = e == d && own.staged_input;
        share.staged_output = e == d && own.staged_output;
        merger.add(share);
    }
    merger.finish(arrays.count, own.timing);
    total.chunking =
        own.chunking + ", all on " + driver.label + " (the fastest device; " + why + ")";
    total.host_ms = ms_between(started, Clock::now());
    return total;
}

}  // namespace dualrt::detail
