// Device-free tests of the timeline export: Timelines built by hand, written as Chrome trace JSON
// (parsed back with nlohmann/json) and as SVG (parsed back with tinyxml2), the files they write,
// and Trace's bookkeeping and argument checks over the in-process fake backend.
#include "fake_backend.hpp"
#include "support.hpp"

#include <nlohmann/json.hpp>
#include <tinyxml2.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

using dualrt::Errc;
using dualrt::Timeline;
using dualrt::TraceSpan;
using nlohmann::json;

namespace {

TraceSpan span(std::size_t track, std::string name, std::string category, double start,
               double end) {
    TraceSpan s;
    s.track = track;
    s.name = std::move(name);
    s.category = std::move(category);
    s.start_ms = start;
    s.end_ms = end;
    return s;
}

// Names with every character XML and JSON treat specially, and some UTF-8.
const std::string tricky = "a<&>\"b'c\\d\te \xCE\xA9";

// Two queues of a small pipeline plus a third track with awkward names.
Timeline sample_timeline() {
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

// ---- SVG --------------------------------------------------------------------------------------

struct Svg {
    tinyxml2::XMLDocument document;
    const tinyxml2::XMLElement* root = nullptr;
};

void parse_svg(const std::string& text, Svg& svg) {
    const auto error = svg.document.Parse(text.c_str(), text.size());
    REQUIRE_MESSAGE(error == tinyxml2::XML_SUCCESS,
                    "svg() is not well-formed XML: " << svg.document.ErrorStr());
    svg.root = svg.document.RootElement();
    REQUIRE(svg.root != nullptr);
}

// Every element named `name` (and of class `cls`, when given) below `parent`, in document order.
void collect(const tinyxml2::XMLElement* parent, const char* name, const char* cls,
             std::vector<const tinyxml2::XMLElement*>& out) {
    for (auto* child = parent->FirstChildElement(); child; child = child->NextSiblingElement()) {
        const char* child_class = child->Attribute("class");
        if (std::string(child->Name()) == name &&
            (cls == nullptr || (child_class != nullptr && std::string(child_class) == cls)))
            out.push_back(child);
        collect(child, name, cls, out);
    }
}

std::vector<const tinyxml2::XMLElement*> elements(const Svg& svg, const char* name,
                                                  const char* cls = nullptr) {
    std::vector<const tinyxml2::XMLElement*> out;
    collect(svg.root, name, cls, out);
    return out;
}

std::string text_of(const tinyxml2::XMLElement* element) {
    const char* text = element->GetText();
    return text ? text : "";
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

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot read back " << path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
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

TEST_CASE("timeline: exporters refuse spans that no viewer could show") {
    Timeline t;
    t.tracks = {"only"};
    t.spans = {span(0, "fine", "c", 0.0, 1.0), span(3, "lost", "c", 0.0, 1.0)};
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "span 1 ('lost') is on track 3", t.chrome_json());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the timeline has 1 tracks", t.svg());

    t.spans = {span(0, "backwards", "c", 2.0, 1.0)};
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "ends before it starts", t.chrome_json());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "ends before it starts", t.svg());

    t.spans = {span(0, "nan", "c", 0.0, std::nan(""))};
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "not a finite number", t.chrome_json());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "not a finite number", t.svg());
}

TEST_CASE("timeline: svg is well-formed SVG 1.1 with a lane per track and a rect per span") {
    const Timeline t = sample_timeline();
    const std::string text = t.svg();
    Svg svg;
    parse_svg(text, svg);

    CHECK(std::string(svg.root->Name()) == "svg");
    CHECK(std::string(svg.root->Attribute("xmlns")) == "http://www.w3.org/2000/svg");
    CHECK(std::string(svg.root->Attribute("version")) == "1.1");
    const double width = svg.root->DoubleAttribute("width");
    const double height = svg.root->DoubleAttribute("height");
    CHECK(width > 0.0);
    CHECK(height > 0.0);
    std::istringstream view_box(svg.root->Attribute("viewBox"));
    double vx = -1, vy = -1, vw = -1, vh = -1;
    view_box >> vx >> vy >> vw >> vh;
    CHECK(vx == 0.0);
    CHECK(vy == 0.0);
    CHECK(vw == width);
    CHECK(vh == height);

    const auto title = elements(svg, "text", "title");
    REQUIRE(title.size() == 1);
    CHECK(test::contains(text_of(title[0]), "6 spans on 3 tracks"));

    // One lane label per track, in order, with its name (escaped in the file, intact parsed).
    const auto labels = elements(svg, "text", "track");
    REQUIRE(labels.size() == t.tracks.size());
    for (std::size_t track = 0; track < t.tracks.size(); ++track)
        CHECK(text_of(labels[track]) == t.tracks[track]);

    // Rectangles: one background, one lane per track, one per span, one legend swatch per
    // category -- nothing else.
    const auto spans = elements(svg, "rect", "span");
    REQUIRE(spans.size() == t.spans.size());
    CHECK(elements(svg, "rect", "background").size() == 1);
    CHECK(elements(svg, "rect", "lane").size() == t.tracks.size());
    CHECK(elements(svg, "rect", "swatch").size() == 4);  // upload, compute, download, mine <&>
    CHECK(elements(svg, "rect").size() == 1 + t.tracks.size() + t.spans.size() + 4);

    // Each span rect lies inside the picture, has a width (a zero-length span too) and a tooltip
    // naming it with its times.
    for (std::size_t i = 0; i < spans.size(); ++i) {
        CAPTURE(i);
        const auto* rect = spans[i];
        CHECK(rect->DoubleAttribute("x") >= 0.0);
        CHECK(rect->DoubleAttribute("x") + rect->DoubleAttribute("width") <= width);
        CHECK(rect->DoubleAttribute("width") > 0.0);
        CHECK(rect->DoubleAttribute("y") + rect->DoubleAttribute("height") <= height);
        const auto* tooltip = rect->FirstChildElement("title");
        REQUIRE(tooltip != nullptr);
        CHECK(text_of(tooltip).rfind(t.spans[i].name + ": ", 0) == 0);
        CHECK(test::contains(text_of(tooltip), " ms ("));
    }
    CHECK(text_of(spans[1]->FirstChildElement("title")) ==
          "compute 0: 1.25\xE2\x80\x93" "3.5 ms (2.25 ms)");
    // Spans on one lane share a y; later starts lie further right.
    CHECK(spans[0]->DoubleAttribute("y") == spans[2]->DoubleAttribute("y"));
    CHECK(spans[0]->DoubleAttribute("y") < spans[1]->DoubleAttribute("y"));
    CHECK(spans[2]->DoubleAttribute("x") > spans[0]->DoubleAttribute("x"));

    // "<&>" reach the file as entities, never raw.
    CHECK(test::contains(text, "a&lt;&amp;&gt;&quot;b&apos;c"));
    CHECK_FALSE(test::contains(text, "a<&>"));
}

TEST_CASE("timeline: svg colours by category, fixed for the usual stages, with a legend") {
    const Timeline t = sample_timeline();
    Svg svg;
    parse_svg(t.svg(), svg);
    const auto spans = elements(svg, "rect", "span");
    REQUIRE(spans.size() == t.spans.size());
    std::map<std::string, std::set<std::string>> fills;  // category -> fills used
    for (std::size_t i = 0; i < spans.size(); ++i)
        fills[t.spans[i].category].insert(spans[i]->Attribute("fill"));
    std::set<std::string> distinct;
    for (const auto& [category, used] : fills) {
        CAPTURE(category);
        CHECK(used.size() == 1);  // one colour per category
        distinct.insert(*used.begin());
    }
    CHECK(distinct.size() == fills.size());  // and a different one for each
    CHECK(*fills["upload"].begin() == "#4c78a8");
    CHECK(*fills["compute"].begin() == "#f58518");
    CHECK(*fills["download"].begin() == "#54a24b");

    // The legend lists each category once, in order of first appearance, in its colour.
    const auto names = elements(svg, "text", "category");
    const auto swatches = elements(svg, "rect", "swatch");
    REQUIRE(names.size() == 4);
    REQUIRE(swatches.size() == 4);
    const std::vector<std::string> expected = {"upload", "compute", "download", "mine <&>"};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(text_of(names[i]) == expected[i]);
        CHECK(*fills[expected[i]].begin() == swatches[i]->Attribute("fill"));
    }
}

TEST_CASE("timeline: svg time axis ticks are 1, 2 or 5 x 10^k ms and cover the spans") {
    const double durations[] = {5.75, 0.0123, 1.0, 987.0, 3.0e4, 1e-9, 1e15};
    for (const double duration : durations) {
        CAPTURE(duration);
        Timeline t;
        t.tracks = {"q"};
        t.spans = {span(0, "s", "c", duration / 3.0, duration)};
        Svg svg;
        parse_svg(t.svg(), svg);
        const auto ticks = elements(svg, "text", "tick");
        REQUIRE(ticks.size() >= 3);
        CHECK(ticks.size() <= 22);
        std::vector<double> values;
        for (const auto* tick : ticks) values.push_back(std::stod(text_of(tick)));
        CHECK(values.front() == 0.0);
        CHECK(values.back() >= duration * (1.0 - 1e-9));
        const double step = values[1] - values[0];
        const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
        CAPTURE(step);
        CHECK((std::abs(mantissa - 1.0) < 1e-6 || std::abs(mantissa - 2.0) < 1e-6 ||
               std::abs(mantissa - 5.0) < 1e-6));
        for (std::size_t i = 1; i < values.size(); ++i)
            CHECK(values[i] - values[i - 1] == doctest::Approx(step));
    }
}

TEST_CASE("timeline: svg of an empty timeline draws the axis only") {
    Svg svg;
    parse_svg(Timeline{}.svg(), svg);
    CHECK(elements(svg, "rect", "span").empty());
    CHECK(elements(svg, "text", "track").empty());
    CHECK(elements(svg, "rect").size() == 1);  // the background
    CHECK(elements(svg, "text", "tick").size() >= 2);
    CHECK(elements(svg, "line").size() >= 2);

    Timeline tracks_only;  // named lanes without spans
    tracks_only.tracks = {"a", "b"};
    Svg lanes;
    parse_svg(tracks_only.svg(), lanes);
    CHECK(elements(lanes, "text", "track").size() == 2);
    CHECK(elements(lanes, "rect", "span").empty());
}

TEST_CASE("timeline: thousands of spans export to both formats") {
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
    Svg svg;
    parse_svg(t.svg(), svg);
    CHECK(elements(svg, "rect", "span").size() == t.spans.size());
    CHECK(elements(svg, "text", "track").size() == 3);
    const json document = parse_json(t.chrome_json());
    CHECK(events_with(document, "X").size() == t.spans.size());
}

TEST_CASE("timeline: write_* give the exported text, or Errc::io_error naming the path") {
    const Timeline t = sample_timeline();
    {
        TempPath file(".json");
        t.write_chrome_json(file.path.string());
        CHECK(read_file(file.path) == t.chrome_json());
    }
    {
        TempPath file(".svg");
        t.write_svg(file.path.string());
        CHECK(read_file(file.path) == t.svg());
    }

    TempPath missing_folder("-no-such-folder");
    const std::string json_path = (missing_folder.path / "trace.json").string();
    const std::string svg_path = (missing_folder.path / "trace.svg").string();
    CHECK_DUALRT_ERROR(Errc::io_error, "'" + json_path + "'", t.write_chrome_json(json_path));
    CHECK_DUALRT_ERROR(Errc::io_error, "No such file or directory",
                       t.write_chrome_json(json_path));
    CHECK_DUALRT_ERROR(Errc::io_error, "'" + svg_path + "'", t.write_svg(svg_path));
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
