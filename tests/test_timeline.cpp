// Device-free tests of the timeline export: Timelines built by hand, checked and written as Chrome
// trace JSON (parsed back with nlohmann/json), the file it writes, and Trace's bookkeeping and
// argument checks over the in-process fake backend.
#include "fake_backend.hpp"
#include "support.hpp"
#include "timeline_support.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

using dualrt::Errc;
using nlohmann::json;
using namespace timeline_test;

namespace {

// ---- JSON -------------------------------------------------------------------------------------

json parse_json(const std::string& text) {
    json document;
    try {
        document = json::parse(text);
    } catch (const json::exception& e) {
        FAIL("chrome_json() is not valid JSON: " << e.what());
    }
    return document;
}

std::vector<json> events_with(const json& document, const std::string& ph,
                              const std::string& name = {}) {
    std::vector<json> out;
    for (const json& event : document.at("traceEvents"))
        if (event.at("ph") == ph && (name.empty() || event.at("name") == name))
            out.push_back(event);
    return out;
}

}  // namespace

TEST_CASE("timeline: duration_ms is the latest end, 0 when empty") {
    CHECK(Timeline{}.duration_ms() == 0.0);
    const Timeline t = sample_timeline();
    CHECK(t.duration_ms() == 5.75);
}

TEST_CASE("timeline: chrome_json has one named thread per track and one X event per span") {
    const Timeline t = sample_timeline();
    const std::string text = t.chrome_json();
    const json document = parse_json(text);

    CHECK(document.at("displayTimeUnit") == "ms");
    REQUIRE(document.at("traceEvents").is_array());

    const auto process = events_with(document, "M", "process_name");
    REQUIRE(process.size() == 1);
    CHECK(process[0].at("args").at("name") == "dualrt");

    // Exactly one thread_name per track, carrying the track's name, and a sort index that keeps
    // the order of Timeline::tracks.
    std::map<std::size_t, std::string> thread_names;
    for (const json& event : events_with(document, "M", "thread_name")) {
        const auto tid = event.at("tid").get<std::size_t>();
        CHECK_MESSAGE(thread_names.count(tid) == 0, "two thread_name events for tid " << tid);
        thread_names[tid] = event.at("args").at("name").get<std::string>();
        CHECK(event.at("pid") == 1);
    }
    REQUIRE(thread_names.size() == t.tracks.size());
    for (std::size_t track = 0; track < t.tracks.size(); ++track)
        CHECK(thread_names[track] == t.tracks[track]);
    const auto sort = events_with(document, "M", "thread_sort_index");
    REQUIRE(sort.size() == t.tracks.size());
    for (const json& event : sort)
        CHECK(event.at("args").at("sort_index") == event.at("tid"));

    // One complete event per span, in microseconds, names and categories as given.
    const auto complete = events_with(document, "X");
    REQUIRE(complete.size() == t.spans.size());
    for (std::size_t i = 0; i < t.spans.size(); ++i) {
        const TraceSpan& s = t.spans[i];
        const json& event = complete[i];
        CAPTURE(i);
        CHECK(event.at("name").get<std::string>() == s.name);
        CHECK(event.at("cat").get<std::string>() == s.category);
        CHECK(event.at("pid") == 1);
        CHECK(event.at("tid").get<std::size_t>() == s.track);
        CHECK(event.at("ts").get<double>() == doctest::Approx(s.start_ms * 1000.0));
        CHECK(event.at("dur").get<double>() == doctest::Approx((s.end_ms - s.start_ms) * 1000.0));
    }
    CHECK(complete[1].at("ts").get<double>() == 1250.0);
    CHECK(complete[1].at("dur").get<double>() == 2250.0);

    // The special characters are escaped in the text, not written raw.
    CHECK(test::contains(text, "a<&>\\\"b'c\\\\d\\te"));
}

TEST_CASE("timeline: chrome_json of an empty timeline and of malformed UTF-8 is valid JSON") {
    const json empty = parse_json(Timeline{}.chrome_json());
    CHECK(empty.at("traceEvents").size() == 1);  // process_name only
    CHECK(events_with(empty, "X").empty());

    Timeline t;
    t.tracks = {"bad \xFF\xFE bytes"};
    t.spans = {span(0, "cut \xCE", "x\xC0\xAF", 0.0, 1.0)};
    const json document = parse_json(t.chrome_json());
    CHECK(events_with(document, "X").size() == 1);
    CHECK(events_with(document, "M", "thread_name").size() == 1);
}

TEST_CASE("timeline: check and the exporter refuse spans that no viewer could show") {
    Timeline t;
    t.tracks = {"only"};
    t.spans = {span(0, "fine", "c", 0.0, 1.0), span(3, "lost", "c", 0.0, 1.0)};
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "span 1 ('lost') is on track 3", t.chrome_json());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the timeline has 1 tracks", t.check());

    t.spans = {span(0, "backwards", "c", 2.0, 1.0)};
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "ends before it starts", t.chrome_json());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "ends before it starts", t.check());

    t.spans = {span(0, "nan", "c", 0.0, std::nan(""))};
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "not a finite number", t.chrome_json());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "not a finite number", t.check());
}

TEST_CASE("timeline: thousands of spans export") {
    Timeline t;
    t.tracks = {"upload", "compute", "download"};
    const char* categories[] = {"upload", "compute", "download"};
    const std::size_t chunks = 2000;
    for (std::size_t c = 0; c < chunks; ++c)
        for (std::size_t stage = 0; stage < 3; ++stage) {
            const double start = 0.01 * static_cast<double>(c + stage);
            t.spans.push_back(span(stage, std::string(categories[stage]) + " " + std::to_string(c),
                                   categories[stage], start, start + 0.01));
        }
    const json document = parse_json(t.chrome_json());
    CHECK(events_with(document, "X").size() == t.spans.size());
}

TEST_CASE("timeline: write_chrome_json gives the exported text, or Errc::io_error "
          "naming the path") {
    const Timeline t = sample_timeline();
    {
        TempPath file(".json");
        t.write_chrome_json(file.path.string());
        CHECK(read_file(file.path) == t.chrome_json());
    }

    TempPath missing_folder("-no-such-folder");
    const std::string json_path = (missing_folder.path / "trace.json").string();
    CHECK_DUALRT_ERROR(Errc::io_error, "'" + json_path + "'", t.write_chrome_json(json_path));
    CHECK_DUALRT_ERROR(Errc::io_error, "No such file or directory",
                       t.write_chrome_json(json_path));
    CHECK_FALSE(std::filesystem::exists(missing_folder.path));
}

// ---- Trace over the fake backend: its bookkeeping and argument checks --------------------------

namespace {

dualrt::Device fake_device(const char* name) {
    return dualrt::Device(std::make_shared<test::fake::Device>(name));
}

}  // namespace

TEST_CASE("timeline: Trace names tracks by first appearance and resolves regions to spans") {
    auto device = fake_device("fake");
    auto first = device.create_queue();
    auto second = device.create_queue();
    dualrt::Trace trace;
    CHECK(trace.empty());
    CHECK(trace.timeline().spans.empty());

    const auto a = trace.begin(second, "a", "upload");
    trace.name_track(first, "compute queue");
    const auto b = trace.begin(first, "b", "compute");
    trace.end(a);
    const auto c = trace.begin(second, "c");
    trace.end(c);
    trace.end(b);
    CHECK_FALSE(trace.empty());

    const Timeline t = trace.timeline();
    CHECK(t.tracks == std::vector<std::string>{"queue 0", "compute queue"});
    REQUIRE(t.spans.size() == 3);
    CHECK(t.spans[0].track == 0);
    CHECK(t.spans[0].name == "a");
    CHECK(t.spans[0].category == "upload");
    CHECK(t.spans[1].track == 1);
    CHECK(t.spans[1].category == "compute");
    CHECK(t.spans[2].track == 0);
    CHECK(t.spans[2].category.empty());
    for (const TraceSpan& s : t.spans) {
        CHECK(s.start_ms == 0.0);  // the fake backend's events all sit at time 0
        CHECK(s.end_ms == 0.0);
    }
}

TEST_CASE("timeline: Trace refuses bad regions, empty queues and a second device") {
    auto device = fake_device("fake one");
    auto queue = device.create_queue();
    dualrt::Trace trace;

    dualrt::Queue empty;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the Queue is empty", trace.begin(empty, "x"));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the Queue is empty", trace.name_track(empty, "x"));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "not returned by Trace::begin",
                       trace.end(dualrt::Trace::Region{}));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "no region 7", trace.end(dualrt::Trace::Region{7}));

    const auto open = trace.begin(queue, "open region");
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "'open region' on 'queue 0' was begun but not ended",
                       trace.timeline());
    trace.end(open);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "'open region' on 'queue 0' has already ended",
                       trace.end(open));
    CHECK(trace.timeline().spans.size() == 1);

    auto other = fake_device("fake two").create_queue();
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "'fake two'", trace.begin(other, "elsewhere"));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "'fake one'", trace.begin(other, "elsewhere"));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "one device", trace.name_track(other, "x"));
    CHECK(trace.timeline().spans.size() == 1);  // the refused calls left nothing behind
    CHECK(trace.timeline().tracks.size() == 1);

    // A region whose queue is gone cannot end: there is nothing to record on.
    auto doomed = device.create_queue();
    const auto orphan = trace.begin(doomed, "orphan");
    doomed = dualrt::Queue();
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "was destroyed before the region ended",
                       trace.end(orphan));
}

TEST_CASE("timeline: a new queue where a destroyed one lived is a new track") {
    auto device = fake_device("fake");
    dualrt::Trace trace;
    for (int round = 0; round < 3; ++round) {
        auto queue = device.create_queue();
        trace.end(trace.begin(queue, "r" + std::to_string(round)));
    }
    const Timeline t = trace.timeline();
    CHECK(t.tracks.size() == 3);
    REQUIRE(t.spans.size() == 3);
    CHECK(t.spans[2].track == 2);
}
