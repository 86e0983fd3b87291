// What both of Timeline's exporters (trace_json.cpp, trace_svg.cpp) share. Internal.
#pragma once

#include <dualrt/trace.hpp>

#include <string>

namespace dualrt::detail {

// Throws Errc::invalid_argument naming the first span that sits on no track, has a time that is
// not finite, or ends before it starts.
void check_timeline(const Timeline& timeline, const char* operation);

// Writes `text` to `path`; throws Errc::io_error naming the path and the reason.
void write_text_file(const std::string& path, const std::string& text, const char* operation);

}  // namespace dualrt::detail
