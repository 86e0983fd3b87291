// Timeline as a Chrome trace-event file (chrome://tracing, ui.perfetto.dev), and the checks it
// makes first.
#include <dualrt/trace.hpp>

#include "support/raise.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

namespace dualrt {

namespace {

using nlohmann::json;

void check_timeline(const Timeline& timeline, const char* operation) {
    for (std::size_t i = 0; i < timeline.spans.size(); ++i) {
        const TraceSpan& span = timeline.spans[i];
        const std::string which = "span " + std::to_string(i) + " ('" + span.name + "')";
        const std::string times = " (start " + std::to_string(span.start_ms) + " ms, end " +
                                  std::to_string(span.end_ms) + " ms)";
        if (span.track >= timeline.tracks.size())
            detail::raise_argument(operation, which + " is on track " +
                                                  std::to_string(span.track) +
                                                  ", but the timeline has " +
                                                  std::to_string(timeline.tracks.size()) +
                                                  " tracks: every span needs an entry in tracks");
        if (!std::isfinite(span.start_ms) || !std::isfinite(span.end_ms))
            detail::raise_argument(operation, which + " has a time that is not a finite number" +
                                                  times);
        if (span.end_ms < span.start_ms)
            detail::raise_argument(operation, which + " ends before it starts" + times);
    }
}

void write_text_file(const std::string& path, const std::string& text, const char* operation) {
    const auto reason = [] { return errno != 0 ? std::strerror(errno) : "reason unknown"; };
    errno = 0;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        detail::raise_argument(operation, "cannot open '" + path + "' for writing: " + reason(),
                               Errc::io_error);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();  // flushes: a full disk shows up here, not in write()
    if (!out)
        detail::raise_argument(operation,
                               "could not write " + detail::format_bytes(text.size()) + " to '" +
                                   path + "': " + reason(),
                               Errc::io_error);
}

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
    check_timeline(*this, "Timeline::chrome_json");
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
    write_text_file(path, chrome_json(), "Timeline::write_chrome_json");
}

void Timeline::check() const { check_timeline(*this, "Timeline::check"); }

}  // namespace dualrt
