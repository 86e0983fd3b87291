// A Timeline (from a Trace or a Pipeline report) drawn as a self-contained SVG picture: one lane
// per track, one rectangle per span coloured by its category, a time axis in ms and a legend. For
// a quick look without a trace viewer; Timeline::chrome_json() opens in Perfetto.
#pragma once

#include <dualrt/trace.hpp>

#include <string>

namespace dualrt::samples {

// The picture. Throws dualrt::Error (Errc::invalid_argument) where Timeline::check() does.
std::string timeline_svg(const Timeline& timeline);

// Writes timeline_svg() to `path`; throws std::runtime_error naming the path and the reason when
// it cannot be written.
void write_timeline_svg(const Timeline& timeline, const std::string& path);

}  // namespace dualrt::samples
