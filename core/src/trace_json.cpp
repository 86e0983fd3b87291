// Timeline as a Chrome trace-event file (chrome://tracing, ui.perfetto.dev).
#include <dualrt/trace.hpp>

#include "errors.hpp"
#include "trace_export.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

namespace dualrt {

namespace {

using nlohmann::json;

constexpr int process_id = 1;  // one process: the tracks are its threads

json metadata(const char* name, std::size_t track, json args) {
    json event = json::object();
    event["ph"] = "M";
    event["name"] = name;
    event["pid"] = process_id;
    event["tid"] = track;
    event["args"] = std::move(args);
    return event;
}

json complete_event(const TraceSpan& span) {
    json event = json::object();
    event["ph"] = "X";
    event["name"] = span.name;
    event["cat"] = span.category;
    event["pid"] = process_id;
    event["tid"] = span.track;
    event["ts"] = span.start_ms * 1000.0;  // the format counts microseconds
    event["dur"] = (span.end_ms - span.start_ms) * 1000.0;
    return event;
}

}  // namespace

double Timeline::duration_ms() const {
    double latest = 0.0;
    for (const TraceSpan& span : spans) latest = std::max(latest, span.end_ms);
    return latest;
}

std::string Timeline::chrome_json() const {
    detail::check_timeline(*this, "Timeline::chrome_json");
    json events = json::array();
    events.push_back(metadata("process_name", 0, {{"name", "dualrt"}}));
    for (std::size_t track = 0; track < tracks.size(); ++track) {
        events.push_back(metadata("thread_name", track, {{"name", tracks[track]}}));
        // Viewers sort threads by id or name otherwise; keep the order of `tracks`.
        events.push_back(metadata("thread_sort_index", track, {{"sort_index", track}}));
    }
    for (const TraceSpan& span : spans) events.push_back(complete_event(span));

    json document = json::object();
    document["traceEvents"] = std::move(events);
    document["displayTimeUnit"] = "ms";
    // Names are the caller's bytes: invalid UTF-8 becomes U+FFFD instead of an exception.
    return document.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

void Timeline::write_chrome_json(const std::string& path) const {
    detail::write_text_file(path, chrome_json(), "Timeline::write_chrome_json");
}

}  // namespace dualrt
