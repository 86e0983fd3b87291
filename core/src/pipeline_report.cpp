#include "pipeline_report.hpp"

#include "errors.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace dualrt::detail {
namespace {

double duration_ms(const StageEvents& stage) { return Event::elapsed_ms(stage.begin, stage.end); }

const StageEvents& stage_of(const ChunkRecord& chunk, int stage) {
    return stage == 0 ? chunk.upload : stage == 1 ? chunk.compute : chunk.download;
}

const char* const stage_names[3] = {"upload", "compute", "download"};

}  // namespace

FittedStages fit_stages(const std::vector<ChunkRecord>& records, std::size_t small,
                        std::size_t large, std::size_t per_size) {
    FittedStages fitted;
    fitted.small = small;
    fitted.large = large;
    for (int stage = 0; stage < 3; ++stage) {
        double mean[2] = {0.0, 0.0};
        for (std::size_t group = 0; group < 2; ++group) {
            for (std::size_t i = 1; i < per_size; ++i)
                mean[group] += duration_ms(stage_of(records[group * per_size + i], stage));
            mean[group] /= static_cast<double>(per_size - 1);
        }
        fitted.stages[stage] = StageModel::fit(static_cast<double>(small), mean[0],
                                               static_cast<double>(large), mean[1]);
    }
    return fitted;
}

std::string FittedStages::describe() const {
    std::ostringstream text;
    text << "measured chunks of " << small << " and " << large << " elements (";
    for (int stage = 0; stage < 3; ++stage) {
        char model[96];
        std::snprintf(model, sizeof model, "%s %.1f us + %.3f ns/element", stage_names[stage],
                      stages[stage].fixed_ms * 1e3, stages[stage].per_element_ms * 1e6);
        text << (stage ? ", " : "") << model;
    }
    text << ")";
    return text.str();
}

PipelineReport make_report(const std::vector<ChunkRecord>& records, PipelineMode mode) {
    PipelineReport report;
    report.mode = mode;
    const bool three = mode == PipelineMode::three_queues;
    report.queues = three ? 3 : 2;
    report.chunks = records.size();
    if (records.empty()) return report;

    Timeline& timeline = report.timeline;
    timeline.tracks = three ? std::vector<std::string>{"upload", "compute", "download"}
                            : std::vector<std::string>{"copy", "compute"};
    const Event& origin = records.front().upload.begin;
    double sums[3] = {0.0, 0.0, 0.0};
    double last_end = 0.0;
    for (const auto& chunk : records) {
        for (int stage = 0; stage < 3; ++stage) {
            const StageEvents& events = stage_of(chunk, stage);
            TraceSpan span;
            span.track = three ? static_cast<std::size_t>(stage) : (stage == 1 ? 1u : 0u);
            span.name = std::string(stage_names[stage]) + " " + std::to_string(chunk.index);
            span.category = stage_names[stage];
            span.start_ms = Event::elapsed_ms(origin, events.begin);
            span.end_ms = Event::elapsed_ms(origin, events.end);
            sums[stage] += span.end_ms - span.start_ms;
            last_end = std::max(last_end, span.end_ms);
            timeline.spans.push_back(std::move(span));
        }
    }
    report.upload_ms = sums[0];
    report.compute_ms = sums[1];
    report.download_ms = sums[2];
    report.serial_ms = sums[0] + sums[1] + sums[2];
    // The busiest queue bounds the run: with one copy queue, uploads and downloads add up.
    report.bound_ms = three ? std::max({sums[0], sums[1], sums[2]})
                            : std::max(sums[0] + sums[2], sums[1]);
    report.measured_ms = last_end;
    return report;
}

}  // namespace dualrt::detail

namespace dualrt {

std::string PipelineReport::summary() const {
    char text[512];
    std::snprintf(text, sizeof text,
                  "%s, %zu chunks of up to %zu elements, depth %zu (%s on the device)%s%s\n"
                  "stages: upload %.3f ms, compute %.3f ms, download %.3f ms\n"
                  "serial %.3f ms, measured %.3f ms: %.2fx speedup, %.0f%% of the bound "
                  "(busiest queue %.3f ms)\n",
                  to_string(mode), chunks, chunk_elements, depth,
                  detail::format_bytes(device_bytes).c_str(),
                  staged_input ? ", input staged" : "", staged_output ? ", output staged" : "",
                  upload_ms, compute_ms, download_ms, serial_ms, measured_ms, speedup(),
                  100.0 * efficiency(), bound_ms);
    return std::string(text) + "chunking: " + chunking + "\n";
}

}  // namespace dualrt
