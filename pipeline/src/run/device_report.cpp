#include "run/device_report.hpp"

#include <algorithm>
#include <cstdio>

namespace dualrt::detail {

void DeviceReportMerger::add(const DeviceShare& share) {
    const PipelineReport& own = *share.report;
    PipelineDeviceRow row;
    row.device_index = share.index;
    row.device = share.label;
    row.chunks = own.chunks;
    for (std::size_t size : own.chunk_sizes) row.elements += size;
    row.stage_times = own.stage_times;
    row.upload_ms = own.upload_ms;
    row.compute_ms = own.compute_ms;
    row.download_ms = own.download_ms;
    row.measured_ms = own.measured_ms;
    row.start_ms = share.start_ms;
    best_rate_ = std::max(best_rate_, row.elements_per_ms());
    if (own.bound_ms > 0.0) bound_rate_ += static_cast<double>(row.elements) / own.bound_ms;
    if (row.chunks > 0) end_ms_ = std::max(end_ms_, row.start_ms + row.measured_ms);
    timed_ += own.timed_chunks;
    // The whole run's stages are as good as the worst device's.
    if (row.chunks > 0) stage_times_ = std::max(stage_times_, own.stage_times);

    total_.upload_ms += row.upload_ms;
    total_.compute_ms += row.compute_ms;
    total_.download_ms += row.download_ms;
    total_.device_bytes += share.device_bytes;
    total_.staged_input = total_.staged_input || share.staged_input;
    total_.staged_output = total_.staged_output || share.staged_output;
    const std::size_t first_track = total_.timeline.tracks.size();
    for (const std::string& track : own.timeline.tracks)
        total_.timeline.tracks.push_back(share.track + " " + track);
    // resolve() makes one span per duration, in the same order: the chunk of span k is
    // durations[k].chunk, named here by its index in the whole run.
    const ResolvedTiming& timing = *share.timing;
    for (std::size_t k = 0; k < timing.timeline.spans.size(); ++k) {
        TraceSpan span = timing.timeline.spans[k];
        span.track += first_track;
        span.name = share.track + " " + span.category + " " +
                    std::to_string((*share.run_index)[timing.durations[k].chunk]);
        span.start_ms += share.start_ms;
        span.end_ms += share.start_ms;
        total_.timeline.spans.push_back(std::move(span));
    }
    total_.devices.push_back(std::move(row));
}

void DeviceReportMerger::finish(std::size_t elements, std::string timing) {
    const auto count = static_cast<double>(elements);
    total_.stage_times = stage_times_;
    if (stage_times_ == StageTimes::not_measured) {
        total_.upload_ms = total_.compute_ms = total_.download_ms = 0.0;
    } else {
        total_.serial_ms = total_.upload_ms + total_.compute_ms + total_.download_ms;
        // Each device's bound lies within its own measured span, and every span within the
        // run's, so with measured stages this bound does too.
        total_.bound_ms = bound_rate_ > 0.0 ? count / bound_rate_ : 0.0;
    }
    total_.measured_ms = end_ms_;
    total_.fastest_alone_ms = best_rate_ > 0.0 ? count / best_rate_ : 0.0;
    total_.timed_chunks = timed_;
    total_.timing = std::move(timing);
}

std::string device_rows_text(const PipelineReport& report) {
    if (report.devices.empty()) return {};
    std::size_t all = 0;
    for (const PipelineDeviceRow& row : report.devices) all += row.elements;
    std::string text;
    char line[512];
    for (const PipelineDeviceRow& row : report.devices) {
        char stages[160] = "stages not measured";
        if (row.stage_times != StageTimes::not_measured)
            std::snprintf(stages, sizeof stages, "upload %.3f ms, compute %.3f ms, download "
                          "%.3f ms%s", row.upload_ms, row.compute_ms, row.download_ms,
                          row.stage_times == StageTimes::estimated ? " (estimated)" : "");
        std::snprintf(line, sizeof line,
                      "device %zu, %s: %zu chunks, %zu elements (%.1f%%); %s; measured %.3f ms "
                      "from +%.3f ms\n",
                      row.device_index, row.device.c_str(), row.chunks, row.elements,
                      100.0 * static_cast<double>(row.elements) /
                          static_cast<double>(std::max<std::size_t>(1, all)),
                      row.chunks > 0 ? stages : "no work", row.measured_ms, row.start_ms);
        text += line;
    }
    if (const auto speedup = report.device_speedup()) {
        std::snprintf(line, sizeof line,
                      "%.2fx the fastest device alone (estimated from its throughput in this "
                      "run: %.3f ms)\n",
                      *speedup, report.fastest_alone_ms);
        text += line;
    }
    return text;
}

}  // namespace dualrt::detail
