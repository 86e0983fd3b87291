// Device-free tests of the samples' SVG timeline (bench/support/timeline_svg.hpp): Timelines
// built by hand, drawn, and parsed back with tinyxml2.
#include "support.hpp"
#include "timeline_support.hpp"
#include "timeline_svg.hpp"

#include <tinyxml2.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

using dualrt::Errc;
using dualrt::samples::timeline_svg;
using dualrt::samples::write_timeline_svg;
using namespace timeline_test;

namespace {

// ---- parsing ----------------------------------------------------------------------------------

struct Svg {
    tinyxml2::XMLDocument document;
    const tinyxml2::XMLElement* root = nullptr;
};

void parse_svg(const std::string& text, Svg& svg) {
    const auto error = svg.document.Parse(text.c_str(), text.size());
    REQUIRE_MESSAGE(error == tinyxml2::XML_SUCCESS,
                    "timeline_svg() is not well-formed XML: " << svg.document.ErrorStr());
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

}  // namespace

TEST_CASE("timeline svg: refuses spans that no viewer could show, as Timeline::check does") {
    Timeline t;
    t.tracks = {"only"};
    t.spans = {span(0, "fine", "c", 0.0, 1.0), span(3, "lost", "c", 0.0, 1.0)};
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the timeline has 1 tracks", timeline_svg(t));
    t.spans = {span(0, "backwards", "c", 2.0, 1.0)};
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "ends before it starts", timeline_svg(t));
    t.spans = {span(0, "nan", "c", 0.0, std::nan(""))};
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "not a finite number", timeline_svg(t));
}

TEST_CASE("timeline svg: is well-formed SVG 1.1 with a lane per track and a rect per span") {
    const Timeline t = sample_timeline();
    const std::string text = timeline_svg(t);
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

TEST_CASE("timeline svg: colours by category, fixed for the usual stages, with a legend") {
    const Timeline t = sample_timeline();
    Svg svg;
    parse_svg(timeline_svg(t), svg);
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

TEST_CASE("timeline svg: time axis ticks are 1, 2 or 5 x 10^k ms and cover the spans") {
    const double durations[] = {5.75, 0.0123, 1.0, 987.0, 3.0e4, 1e-9, 1e15};
    for (const double duration : durations) {
        CAPTURE(duration);
        Timeline t;
        t.tracks = {"q"};
        t.spans = {span(0, "s", "c", duration / 3.0, duration)};
        Svg svg;
        parse_svg(timeline_svg(t), svg);
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

TEST_CASE("timeline svg: of an empty timeline draws the axis only") {
    Svg svg;
    parse_svg(timeline_svg(Timeline{}), svg);
    CHECK(elements(svg, "rect", "span").empty());
    CHECK(elements(svg, "text", "track").empty());
    CHECK(elements(svg, "rect").size() == 1);  // the background
    CHECK(elements(svg, "text", "tick").size() >= 2);
    CHECK(elements(svg, "line").size() >= 2);

    Timeline tracks_only;  // named lanes without spans
    tracks_only.tracks = {"a", "b"};
    Svg lanes;
    parse_svg(timeline_svg(tracks_only), lanes);
    CHECK(elements(lanes, "text", "track").size() == 2);
    CHECK(elements(lanes, "rect", "span").empty());
}

TEST_CASE("timeline svg: thousands of spans") {
    Timeline t;
    t.tracks = {"upload", "compute", "download"};
    const char* categories[] = {"upload", "compute", "download"};
    for (std::size_t c = 0; c < 2000; ++c)
        for (std::size_t stage = 0; stage < 3; ++stage) {
            const double start = 0.01 * static_cast<double>(c + stage);
            t.spans.push_back(span(stage, std::string(categories[stage]) + " " + std::to_string(c),
                                   categories[stage], start, start + 0.01));
        }
    Svg svg;
    parse_svg(timeline_svg(t), svg);
    CHECK(elements(svg, "rect", "span").size() == t.spans.size());
    CHECK(elements(svg, "text", "track").size() == 3);
}

TEST_CASE("timeline svg: the file holds timeline_svg(), or std::runtime_error names the path") {
    const Timeline t = sample_timeline();
    TempPath file(".svg");
    write_timeline_svg(t, file.path.string());
    CHECK(read_file(file.path) == timeline_svg(t));

    TempPath missing_folder("-no-such-folder");
    const std::string path = (missing_folder.path / "trace.svg").string();
    const std::string quoted = "'" + path + "'";
    CHECK_THROWS_WITH_AS(write_timeline_svg(t, path), doctest::Contains(quoted.c_str()),
                         std::runtime_error);
    CHECK_FALSE(std::filesystem::exists(missing_folder.path));
}
