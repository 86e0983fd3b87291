// What the timeline tests share: spans and Timelines built by hand, and temporary files.
#pragma once

#include <dualrt/trace.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <system_error>

namespace timeline_test {

using dualrt::Timeline;
using dualrt::TraceSpan;

inline TraceSpan span(std::size_t track, std::string name, std::string category,
                      double start, double end) {
    TraceSpan s;
    s.track = track;
    s.name = std::move(name);
    s.category = std::move(category);
    s.start_ms = start;
    s.end_ms = end;
    return s;
}

// Names with every character XML and JSON treat specially, and some UTF-8.
inline const std::string tricky = "a<&>\"b'c\\d\te \xCE\xA9";

// Two queues of a small pipeline plus a third track with awkward names.
inline Timeline sample_timeline() {
    Timeline t;
    t.tracks = {"upload queue", "compute queue", "odd " + tricky};
    t.spans = {span(0, "upload 0", "upload", 0.0, 1.25),
               span(1, "compute 0", "compute", 1.25, 3.5),
               span(0, "upload 1", "upload", 1.25, 2.5),
               span(1, "compute 1", "compute", 3.5, 5.75),
               span(2, "download 0", "download", 3.5, 4.0),
               span(2, tricky, "mine <&>", 4.0, 4.0)};  // zero length, own category
    return t;
}

// ---- files ------------------------------------------------------------------------------------

// A fresh path in the temporary folder, removed when the test is done.
struct TempPath {
    std::filesystem::path path;
    explicit TempPath(const char* suffix) {
        static int counter = 0;
        std::random_device random;
        path = std::filesystem::temp_directory_path() /
               ("dualrt-timeline-" + std::to_string(random()) + "-" +
                std::to_string(++counter) + suffix);
    }
    ~TempPath() {
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
    }
};

inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot read back " << path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace timeline_test
