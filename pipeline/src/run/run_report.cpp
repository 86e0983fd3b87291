#include "run/run_report.hpp"

#include "run/device_report.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <utility>

namespace dualrt::detail {
namespace {

// "0-2, 19-21, 38" for the chunk indices whose flag is set.
std::string index_ranges(const std::vector<bool>& flags) {
    std::string text;
    for (std::size_t i = 0; i < flags.size();) {
        if (!flags[i]) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j + 1 < flags.size() && flags[j + 1]) ++j;
        text += (text.empty() ? "" : ", ") + std::to_string(i) +
                (j > i ? "-" + std::to_string(j) : std::string());
        i = j + 1;
    }
    return text;
}

// Which chunks were timed and where the other stages' times come from: `estimated` of them from
// the model, `unknown` not at all (the model had nothing to say about their stage).
std::string describe_timing(const std::vector<bool>& timed, std::size_t estimated,
                            std::size_t unknown, std::size_t model_samples, bool host_clock) {
    const auto count = static_cast<std::size_t>(std::count(timed.begin(), timed.end(), true));
    if (count == timed.size() && estimated + unknown == 0)
        return "every stage of every chunk timed";
    std::string text;
    if (count == 0 && host_clock)
        text = "no chunk's stages timed in this run (its start and end read on the host clock)";
    else if (count == 0)
        text = "no chunk's stages timed in this run (only its start and end)";
    else
        text = "stages timed on " + std::to_string(count) + " of " +
               std::to_string(timed.size()) + " chunks (" + index_ranges(timed) + ")";
    if (estimated > 0)
        text += "; " + std::to_string(estimated) + " stage times estimated from a model of " +
                std::to_string(model_samples) + " timed stages";
    if (unknown > 0)
        text += "; " + std::to_string(unknown) +
                " stage times not measured, with nothing to estimate them from";
    return text;
}

// The time `track` was busy: the union of its spans, so that spans of one engine that ran side
// by side (kernels of two lanes) count once.
double busy_ms(const Timeline& timeline, std::size_t track) {
    std::vector<std::pair<double, double>> spans;
    for (const TraceSpan& span : timeline.spans)
        if (span.track == track) spans.emplace_back(span.start_ms, span.end_ms);
    std::sort(spans.begin(), spans.end());
    double busy = 0.0, end = -std::numeric_limits<double>::infinity();
    for (const auto& [from, to] : spans) {
        if (to <= end) continue;
        busy += to - std::max(from, end);
        end = to;
    }
    return busy;
}

}  // namespace

PipelineReport make_report(const RunFacts& facts, const std::vector<ChunkExtent>& extents,
                           const ResolvedTiming& timing, const StageModels& models,
                           std::size_t model_samples) {
    PipelineReport report;
    report.mode = facts.mode;
    report.queues = facts.queues;
    report.depth = facts.depth;
    report.device_bytes = facts.device_bytes;
    report.input_arrays = facts.input_arrays;
    report.output_arrays = facts.output_arrays;
    report.staged_input = facts.staged_input;
    report.staged_output = facts.staged_output;
    report.chunking = facts.chunking;
    report.chunks = extents.size();
    report.chunk_sizes = sizes_of(extents);
    if (!report.chunk_sizes.empty())
        report.chunk_elements =
            *std::max_element(report.chunk_sizes.begin(), report.chunk_sizes.end());
    report.timeline = timing.timeline;
    report.measured_ms = timing.measured_ms;
    report.timed_chunks = timing.timed_chunks;

    // Each stage of each chunk: its timed duration where its start is known, else the model's
    // estimate (NaN marks "not timed").
    const double untimed = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> timed_ms[stage_count];
    for (std::size_t stage = upload_stage; stage < stage_count; ++stage)
        timed_ms[stage].assign(extents.size(), untimed);
    std::vector<bool> timed(extents.size(), false);
    for (const StageDuration& d : timing.durations) {
        timed[d.chunk] = true;
        if (d.known_start) timed_ms[d.stage][d.chunk] = d.ms;
    }
    // A model that predicts no time for a stage has learnt nothing of it (no sample, or only
    // spans of a device that runs its queues side by side): work that ran took time.
    double sums[stage_count] = {};
    std::size_t estimated = 0, unknown = 0;
    for (std::size_t stage = upload_stage; stage < stage_count; ++stage) {
        for (std::size_t i = 0; i < extents.size(); ++i) {
            const double ms = timed_ms[stage][i];
            const double estimate =
                std::isnan(ms) ? models.stage[stage].at(static_cast<double>(extents[i].count))
                               : 0.0;
            if (!std::isnan(ms))
                sums[stage] += ms;
            else if (estimate > 0.0 && model_samples > 0)
                sums[stage] += estimate, ++estimated;
            else
                ++unknown;
        }
    }
    report.stage_times = unknown > 0     ? StageTimes::not_measured
                         : estimated > 0 ? StageTimes::estimated
                                         : StageTimes::measured;
    report.timing =
        describe_timing(timed, estimated, unknown, model_samples, timing.host_clock);
    if (report.stage_times == StageTimes::not_measured) return report;
    report.upload_ms = sums[upload_stage];
    report.compute_ms = sums[compute_stage];
    report.download_ms = sums[download_stage];
    report.serial_ms = report.upload_ms + report.compute_ms + report.download_ms;
    if (report.stage_times == StageTimes::measured) {
        // Each track is one engine's queue (with two queues, the copy queue holds both
        // directions), so its busy time is what that engine needed.
        for (std::size_t track = 0; track < report.timeline.tracks.size(); ++track)
            report.bound_ms = std::max(report.bound_ms, busy_ms(report.timeline, track));
        return report;
    }
    // The busiest queue bounds the run: with one copy queue, uploads and downloads add up.
    report.bound_ms = facts.mode == PipelineMode::two_queues
                          ? std::max(report.upload_ms + report.download_ms, report.compute_ms)
                          : std::max({report.upload_ms, report.compute_ms, report.download_ms});
    return report;
}

}  // namespace dualrt::detail

namespace dualrt {

const char* to_string(StageTimes times) noexcept {
    switch (times) {
    case StageTimes::measured: return "measured";
    case StageTimes::estimated: return "estimated";
    case StageTimes::not_measured: return "not measured";
    }
    return "unknown";
}

std::optional<double> PipelineReport::speedup() const {
    if (stage_times != StageTimes::measured || measured_ms <= 0.0) return std::nullopt;
    return serial_ms / measured_ms;
}

std::optional<double> PipelineReport::efficiency() const {
    if (stage_times != StageTimes::measured || measured_ms <= 0.0) return std::nullopt;
    // The busy spans lie inside the measured one; the clamp only absorbs the timers' rounding.
    return std::min(1.0, bound_ms / measured_ms);
}

std::optional<double> PipelineReport::device_speedup() const {
    if (devices.empty() || fastest_alone_ms <= 0.0 || measured_ms <= 0.0) return std::nullopt;
    return fastest_alone_ms / measured_ms;
}

namespace detail {

// The stage lines of a report: the sums and what follows from them, or why there are none.
std::string stage_lines(const PipelineReport& r) {
    char text[512];
    switch (r.stage_times) {
    case StageTimes::not_measured:
        std::snprintf(text, sizeof text,
                      "stages: not measured; measured %.3f ms (speedup and efficiency need "
                      "every chunk timed: PipelineTiming::every_chunk)\n",
                      r.measured_ms);
        break;
    case StageTimes::estimated:
        std::snprintf(text, sizeof text,
                      "stages (estimated): upload %.3f ms, compute %.3f ms, download %.3f ms\n"
                      "serial %.3f ms (estimated), measured %.3f ms (speedup and efficiency "
                      "need every chunk timed: PipelineTiming::every_chunk)\n",
                      r.upload_ms, r.compute_ms, r.download_ms, r.serial_ms, r.measured_ms);
        break;
    case StageTimes::measured:
        std::snprintf(text, sizeof text,
                      "stages: upload %.3f ms, compute %.3f ms, download %.3f ms\n"
                      "serial %.3f ms, measured %.3f ms: %.2fx speedup, %.0f%% of the bound "
                      "(busiest engine %.3f ms)\n",
                      r.upload_ms, r.compute_ms, r.download_ms, r.serial_ms, r.measured_ms,
                      r.speedup().value_or(0.0), 100.0 * r.efficiency().value_or(0.0),
                      r.bound_ms);
        break;
    }
    return text;
}

}  // namespace detail

std::string PipelineReport::summary() const {
    char text[384];
    std::snprintf(text, sizeof text,
                  "%s on %zu queues, %zu chunks of up to %zu elements, depth %zu (%s on the "
                  "device), %zu input and %zu output arrays%s%s\n",
                  to_string(mode), queues, chunks, chunk_elements, depth,
                  detail::format_bytes(device_bytes).c_str(), input_arrays, output_arrays,
                  staged_input ? ", input staged" : "", staged_output ? ", output staged" : "");
    return std::string(text) + detail::stage_lines(*this) + "chunking: " + chunking +
           "\ntiming: " + timing + "\n" + (replay.empty() ? "" : "replay: " + replay + "\n") +
           detail::device_rows_text(*this);
}

}  // namespace dualrt
