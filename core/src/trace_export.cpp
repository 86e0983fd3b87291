// What both of Timeline's exporters (trace_json.cpp, trace_svg.cpp) share.
#include "trace_export.hpp"

#include "errors.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>

namespace dualrt::detail {

// A Timeline is a plain value anyone can fill in, so the exporters check it rather than write a
// file that a viewer rejects or draws wrongly.
void check_timeline(const Timeline& timeline, const char* operation) {
    for (std::size_t i = 0; i < timeline.spans.size(); ++i) {
        const TraceSpan& span = timeline.spans[i];
        const std::string which = "span " + std::to_string(i) + " ('" + span.name + "')";
        if (span.track >= timeline.tracks.size())
            raise_argument(operation, which + " is on track " + std::to_string(span.track) +
                                          ", but the timeline has " +
                                          std::to_string(timeline.tracks.size()) +
                                          " tracks: every span needs an entry in tracks");
        if (!std::isfinite(span.start_ms) || !std::isfinite(span.end_ms))
            raise_argument(operation, which + " has a time that is not a finite number (start " +
                                          std::to_string(span.start_ms) + " ms, end " +
                                          std::to_string(span.end_ms) + " ms)");
        if (span.end_ms < span.start_ms)
            raise_argument(operation, which + " ends before it starts (start " +
                                          std::to_string(span.start_ms) + " ms, end " +
                                          std::to_string(span.end_ms) + " ms)");
    }
}

void write_text_file(const std::string& path, const std::string& text, const char* operation) {
    errno = 0;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out)
        raise_argument(operation,
                       "cannot open '" + path + "' for writing: " +
                           (errno != 0 ? std::strerror(errno) : "reason unknown"),
                       Errc::io_error);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();  // flushes: a full disk shows up here, not in write()
    if (!out)
        raise_argument(operation,
                       "could not write " + format_bytes(text.size()) + " to '" + path + "': " +
                           (errno != 0 ? std::strerror(errno) : "reason unknown"),
                       Errc::io_error);
}

}  // namespace dualrt::detail
