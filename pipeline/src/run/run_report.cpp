#include "run/run_report.hpp"

#include "run/device_report.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>

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

std::string describe_timing(const std::vector<bool>& timed, std::size_t estimated_stages,
                            std::size_t model_samples, bool host_clock) {
    const auto count = static_cast<std::size_t>(std::count(timed.begin(), timed.end(), true));
    if (count == timed.size() && estimated_stages == 0) return "every stage of every chunk timed";
    std::string text;
    if (count == 0 && host_clock)
        text = "no chunk's stages timed in this run (its start and end read on the host clock, "
               "on queues that keep no timestamps)";
    else if (count == 0)
        text = "no chunk's stages timed in this run (only its start and end)";
    else
        text = "stages timed on " + std::to_string(count) + " of " +
               std::to_string(timed.size()) + " chunks (" + index_ranges(timed) + ")";
    if (estimated_stages > 0)
        text += "; " + std::to_string(estimated_stages) +
                " stage times estimated from a model of " + std::to_string(model_samples) +
                " timed stages";
    return text;
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
    const double unknown = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> timed_ms[stage_count];
    for (std::size_t stage = upload_stage; stage < stage_count; ++stage)
        timed_ms[stage].assign(extents.size(), unknown);
    std::vector<bool> timed(extents.size(), false);
    for (const StageDuration& d : timing.durations) {
        timed[d.chunk] = true;
        if (d.known_start) timed_ms[d.stage][d.chunk] = d.ms;
    }
    double sums[stage_count] = {};
    std::size_t estimated = 0;
    for (std::size_t stage = upload_stage; stage < stage_count; ++stage) {
        for (std::size_t i = 0; i < extents.size(); ++i) {
            const double ms = timed_ms[stage][i];
            if (!std::isnan(ms)) {
                sums[stage] += ms;
            } else {
                sums[stage] += models.stage[stage].at(static_cast<double>(extents[i].count));
                ++estimated;
            }
        }
    }
    report.upload_ms = sums[upload_stage];
    report.compute_ms = sums[compute_stage];
    report.download_ms = sums[download_stage];
    report.serial_ms = report.upload_ms + report.compute_ms + report.download_ms;
    // The busiest queue bounds the run: with one copy queue, uploads and downloads add up.
    report.bound_ms = facts.mode == PipelineMode::two_queues
                          ? std::max(report.upload_ms + report.download_ms, report.compute_ms)
                          : std::max({report.upload_ms, report.compute_ms, report.download_ms});
    report.timing = describe_timing(timed, estimated, model_samples, timing.host_clock);
    return report;
}

}  // namespace dualrt::detail

namespace dualrt {

std::string PipelineReport::summary() const {
    char text[640];
    std::snprintf(text, sizeof text,
                  "%s on %zu queues, %zu chunks of up to %zu elements, depth %zu (%s on the "
                  "device), %zu input and %zu output arrays%s%s\n"
                  "stages: upload %.3f ms, compute %.3f ms, download %.3f ms\n"
                  "serial %.3f ms, measured %.3f ms: %.2fx speedup, %.0f%% of the bound "
                  "(busiest queue %.3f ms)\n",
                  to_string(mode), queues, chunks, chunk_elements, depth,
                  detail::format_bytes(device_bytes).c_str(), input_arrays, output_arrays,
                  staged_input ? ", input staged" : "", staged_output ? ", output staged" : "",
                  upload_ms, compute_ms, download_ms, serial_ms, measured_ms, speedup(),
                  100.0 * efficiency(), bound_ms);
    return std::string(text) + "chunking: " + chunking + "\ntiming: " + timing + "\n" +
           detail::device_rows_text(*this);
}

}  // namespace dualrt
