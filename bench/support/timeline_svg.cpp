// Timeline as an SVG picture: a title, one lane per track with its name on the left, one
// rectangle per span coloured by category (with a tooltip), a time axis in ms, and a legend.
//
// Elements, for tools that read the file: one background <rect class="background">, one
// <rect class="lane"> per track, one <rect class="span"> per span (in the order of
// Timeline::spans, each with a <title>), one <rect class="swatch"> per category in the legend;
// <text class="track"> per track, <text class="tick"> per axis tick, <text class="category"> per
// legend entry, <text class="label"> on spans wide enough to hold their name.
#include "timeline_svg.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

namespace dualrt::samples {

namespace {

// ---- text -------------------------------------------------------------------------------------

// Length of the well-formed UTF-8 sequence (RFC 3629) that starts at text[at], or 0. U+FFFE and
// U+FFFF count as malformed: XML 1.0 does not allow them.
std::size_t utf8_length(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[at + k]); };
    const unsigned char lead = byte(0);
    // The length a lead byte announces, and the range its second byte must be in (narrower than
    // 80..BF after E0, ED, F0 and F4: those exclude overlong forms, surrogates and > U+10FFFF).
    std::size_t length = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) lo = 0xA0;
        if (lead == 0xED) hi = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) lo = 0x90;
        if (lead == 0xF4) hi = 0x8F;
    }
    if (length == 0 || at + length > text.size()) return 0;
    if (byte(1) < lo || byte(1) > hi) return 0;
    for (std::size_t k = 2; k < length; ++k)
        if ((byte(k) & 0xC0) != 0x80) return 0;
    if (length == 3 && lead == 0xEF && byte(1) == 0xBF && byte(2) >= 0xBE) return 0;
    return length;
}

// Appends `text` as XML character data or attribute value. Markup characters become entities;
// what XML 1.0 cannot hold at all (control characters, malformed UTF-8) becomes U+FFFD, so any
// name the caller chose gives a well-formed file.
void append_escaped(std::string& out, std::string_view text) {
    static constexpr const char* replacement = "\xEF\xBF\xBD";
    for (std::size_t at = 0; at < text.size();) {
        const auto c = static_cast<unsigned char>(text[at]);
        if (c >= 0x80) {
            const std::size_t length = utf8_length(text, at);
            if (length == 0) {
                out += replacement;
                ++at;
            } else {
                out.append(text.substr(at, length));
                at += length;
            }
            continue;
        }
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') out += replacement;
                else out += static_cast<char>(c);
        }
        ++at;
    }
}

std::size_t count_chars(std::string_view text) {  // UTF-8 code points, for width estimates
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

// `text` cut to at most max_chars code points, ending in an ellipsis when cut.
std::string shortened(std::string_view text, std::size_t max_chars) {
    if (count_chars(text) <= max_chars) return std::string(text);
    std::size_t chars = 0, at = 0;
    const std::size_t keep = max_chars > 0 ? max_chars - 1 : 0;
    for (; at < text.size(); ++at)
        if ((static_cast<unsigned char>(text[at]) & 0xC0) != 0x80 && chars++ == keep) break;
    return std::string(text.substr(0, at)) + "\xE2\x80\xA6";
}

// Fixed-point text that does not depend on the C locale (snprintf would write "1,5" under a
// German LC_NUMERIC, which no SVG reader accepts). Trailing zeros are dropped.
std::string number(double value, int decimals) {
    char text[512];  // fixed notation of a large double takes hundreds of digits
    auto result =
        std::to_chars(text, text + sizeof text, value, std::chars_format::fixed, decimals);
    if (result.ec != std::errc{})
        result = std::to_chars(text, text + sizeof text, value, std::chars_format::general);
    std::string out(text, result.ptr);
    if (out.find('.') != std::string::npos && out.find('e') == std::string::npos) {
        out.erase(out.find_last_not_of('0') + 1);
        if (out.back() == '.') out.pop_back();
    }
    return out == "-0" ? "0" : out;
}

std::string px(double value) { return number(value, 2); }

// ---- the time axis ----------------------------------------------------------------------------

// Ticks at multiples of a "nice" step (1, 2 or 5 x 10^k ms) covering [lo, hi].
struct Axis {
    double start = 0.0;  // ms at the left end, a multiple of step
    double step = 1.0;
    std::size_t intervals = 1;
    int decimals = 0;  // enough to print every tick exactly
    double end() const { return start + step * static_cast<double>(intervals); }
    double tick(std::size_t i) const { return start + step * static_cast<double>(i); }
};

Axis nice_axis(double lo, double hi) {
    constexpr double target_intervals = 8.0;
    if (!(hi > lo)) hi = lo + 1.0;  // nothing to show: one millisecond of empty axis
    hi = std::max(hi, lo + 1e-6);   // no device timer resolves less than a nanosecond
    int exponent = static_cast<int>(std::floor(std::log10((hi - lo) / target_intervals)));
    const double fraction = (hi - lo) / target_intervals / std::pow(10.0, exponent);
    int mantissa = fraction <= 1.0 ? 1 : fraction <= 2.0 ? 2 : fraction <= 5.0 ? 5 : 10;
    if (mantissa == 10) mantissa = 1, ++exponent;
    Axis axis;
    axis.step = mantissa * std::pow(10.0, exponent);
    axis.decimals = std::max(0, -exponent);
    // The small slack keeps a bound that is a tick, up to rounding, from adding an interval.
    axis.start = std::floor(lo / axis.step + 1e-9) * axis.step;
    axis.intervals = static_cast<std::size_t>(
        std::max(1.0, std::ceil((hi - axis.start) / axis.step - 1e-9)));
    return axis;
}

// ---- colours ----------------------------------------------------------------------------------

struct Colour {
    const char* fill;
    const char* ink;  // readable text on `fill`
};

// The usual stages keep their colours in every picture; other categories take the rest in the
// order they first appear (Tableau 10, which stays apart for common colour blindness).
constexpr std::pair<std::string_view, Colour> fixed_colours[] = {
    {"upload", {"#4c78a8", "#ffffff"}},
    {"compute", {"#f58518", "#1a1a1a"}},
    {"download", {"#54a24b", "#ffffff"}},
};
constexpr Colour further_colours[] = {
    {"#e45756", "#ffffff"}, {"#72b7b2", "#1a1a1a"}, {"#b279a2", "#1a1a1a"},
    {"#eeca3b", "#1a1a1a"}, {"#9d755d", "#ffffff"}, {"#ff9da6", "#1a1a1a"},
    {"#bab0ac", "#1a1a1a"},
};

struct Category {
    std::string name;
    Colour colour;
};

// Every category of the timeline once, in order of first appearance, with its colour; and each
// span's index into that list.
struct Categories {
    std::vector<Category> list;
    std::vector<std::size_t> of_span;
};

Colour colour_of(std::string_view category, std::size_t& further_used) {
    for (const auto& [name, colour] : fixed_colours)
        if (name == category) return colour;
    return further_colours[further_used++ % std::size(further_colours)];
}

Categories assign_colours(const Timeline& timeline) {
    Categories categories;
    std::unordered_map<std::string_view, std::size_t> index;  // views into timeline.spans
    std::size_t further_used = 0;
    categories.of_span.reserve(timeline.spans.size());
    for (const TraceSpan& span : timeline.spans) {
        const auto [at, is_new] = index.emplace(span.category, categories.list.size());
        if (is_new)
            categories.list.push_back({span.category, colour_of(span.category, further_used)});
        categories.of_span.push_back(at->second);
    }
    return categories;
}

std::string category_label(const std::string& name) { return name.empty() ? "(none)" : name; }

// ---- layout -----------------------------------------------------------------------------------

constexpr double width = 1200.0;
constexpr double margin = 16.0;
constexpr double font_size = 12.0;
constexpr double char_width = 0.6 * font_size;  // sans-serif average, for estimates only
constexpr double title_height = 40.0;
constexpr double lane_height = 24.0;
constexpr double lane_pitch = 30.0;
constexpr double axis_height = 36.0;
constexpr double legend_row = 20.0;
constexpr double swatch = 12.0;
constexpr std::size_t max_label_chars = 36;

struct Layout {
    double left = 0.0;         // x of the time axis' start; track names end left of it
    double plot_width = 0.0;   // x extent of the axis
    double lanes_top = title_height;
    double axis_y = 0.0;       // y of the axis line, below the last lane
    double legend_y = 0.0;     // y of the first legend row
    double height = 0.0;
    Axis axis;

    double x(double ms) const {
        return left + (ms - axis.start) / (axis.end() - axis.start) * plot_width;
    }
    double lane_y(std::size_t track) const {
        return lanes_top + lane_pitch * static_cast<double>(track);
    }
};

// Legend entries flow left to right and wrap: entry i sits at x[i] on row row[i].
struct LegendFlow {
    std::vector<double> x;
    std::vector<std::size_t> row;
    std::size_t rows = 0;
};

LegendFlow flow_legend(const Categories& categories) {
    LegendFlow flow;
    double at = margin;
    std::size_t row = 0;
    for (const Category& category : categories.list) {
        const double entry = swatch + 6.0 +
                             char_width * static_cast<double>(count_chars(
                                 shortened(category_label(category.name), max_label_chars))) +
                             20.0;
        if (at > margin && at + entry > width - margin) {  // full: wrap to the next row
            at = margin;
            ++row;
        }
        flow.x.push_back(at);
        flow.row.push_back(row);
        at += entry;
    }
    flow.rows = categories.list.empty() ? 0 : row + 1;
    return flow;
}

Layout lay_out(const Timeline& timeline, std::size_t legend_rows) {
    Layout layout;
    std::size_t longest = 0;
    for (const std::string& track : timeline.tracks)
        longest = std::max(longest, count_chars(shortened(track, max_label_chars)));
    const double label_width = char_width * static_cast<double>(longest);
    layout.left = std::clamp(margin + 8.0 + label_width, 80.0, 320.0);
    layout.plot_width = width - layout.left - 2.0 * margin;  // room for the last tick's text

    double earliest = 0.0;
    for (const TraceSpan& span : timeline.spans) earliest = std::min(earliest, span.start_ms);
    layout.axis = nice_axis(earliest, timeline.duration_ms());

    layout.axis_y = layout.lane_y(timeline.tracks.size()) + 4.0;
    layout.legend_y = layout.axis_y + axis_height;
    layout.height = layout.legend_y + legend_row * static_cast<double>(legend_rows) + margin;
    return layout;
}

// ---- drawing ----------------------------------------------------------------------------------

void draw_title(std::string& out, const Timeline& timeline, const Layout& layout) {
    out += "<text class=\"title\" x=\"" + px(margin) + "\" y=\"26\" font-size=\"16\">";
    append_escaped(out, "dualrt timeline: " + std::to_string(timeline.spans.size()) +
                            " spans on " + std::to_string(timeline.tracks.size()) + " tracks, " +
                            number(timeline.duration_ms(), layout.axis.decimals + 3) + " ms");
    out += "</text>\n";
}

void draw_lanes(std::string& out, const Timeline& timeline, const Layout& layout) {
    for (std::size_t track = 0; track < timeline.tracks.size(); ++track) {
        const double y = layout.lane_y(track);
        out += "<rect class=\"lane\" x=\"" + px(layout.left) + "\" y=\"" + px(y) + "\" width=\"" +
               px(layout.plot_width) + "\" height=\"" + px(lane_height) + "\" fill=\"" +
               (track % 2 == 0 ? "#f4f4f4" : "#eaeaea") + "\"/>\n";
        out += "<text class=\"track\" x=\"" + px(layout.left - 8.0) + "\" y=\"" +
               px(y + lane_height / 2.0 + font_size * 0.35) + "\" text-anchor=\"end\">";
        append_escaped(out, shortened(timeline.tracks[track], max_label_chars));
        out += "</text>\n";
    }
}

void draw_axis(std::string& out, const Layout& layout) {
    const Axis& axis = layout.axis;
    const std::string top = px(layout.lanes_top), bottom = px(layout.axis_y);
    out += "<g class=\"axis\" stroke=\"#888888\" stroke-width=\"1\">\n";
    out += "<line x1=\"" + px(layout.left) + "\" y1=\"" + bottom + "\" x2=\"" +
           px(layout.left + layout.plot_width) + "\" y2=\"" + bottom + "\"/>\n";
    for (std::size_t i = 0; i <= axis.intervals; ++i) {
        const std::string x = px(layout.x(axis.tick(i)));
        // A faint grid line through the lanes, then the tick mark itself.
        out += "<line x1=\"" + x + "\" y1=\"" + top + "\" x2=\"" + x + "\" y2=\"" + bottom +
               "\" stroke=\"#d0d0d0\" stroke-dasharray=\"2,3\"/>\n";
        out += "<line x1=\"" + x + "\" y1=\"" + bottom + "\" x2=\"" + x + "\" y2=\"" +
               px(layout.axis_y + 5.0) + "\"/>\n";
    }
    out += "</g>\n";
    for (std::size_t i = 0; i <= axis.intervals; ++i)
        out += "<text class=\"tick\" x=\"" + px(layout.x(axis.tick(i))) + "\" y=\"" +
               px(layout.axis_y + 18.0) + "\" text-anchor=\"middle\">" +
               number(axis.tick(i), axis.decimals) + "</text>\n";
    out += "<text class=\"unit\" x=\"" + px(layout.left + layout.plot_width) + "\" y=\"" +
           px(layout.axis_y + 32.0) + "\" text-anchor=\"end\" fill=\"#555555\">time (ms)</text>\n";
}

void draw_span(std::string& out, const TraceSpan& span, const Colour& colour,
               const Layout& layout) {
    const int decimals = layout.axis.decimals + 3;  // finer than the ticks, for the tooltip
    const double x = layout.x(span.start_ms);
    // A zero-length span is still drawn, as a hairline, so that it can be found and hovered.
    const double w = std::max(layout.x(span.end_ms) - x, 0.5);
    const double y = layout.lane_y(span.track) + 2.0;
    out += "<rect class=\"span\" x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(w) +
           "\" height=\"" + px(lane_height - 4.0) + "\" fill=\"" + colour.fill + "\"><title>";
    append_escaped(out, span.name + ": " + number(span.start_ms, decimals) + "\xE2\x80\x93" +
                            number(span.end_ms, decimals) + " ms (" +
                            number(span.end_ms - span.start_ms, decimals) + " ms)");
    out += "</title></rect>\n";
    const std::size_t chars = count_chars(span.name);
    if (chars > 0 && w >= char_width * static_cast<double>(chars) + 8.0) {
        // pointer-events: hovering the name still shows the rectangle's tooltip.
        out += "<text class=\"label\" x=\"" + px(x + 4.0) + "\" y=\"" +
               px(y + (lane_height - 4.0) / 2.0 + font_size * 0.35) + "\" fill=\"" + colour.ink +
               "\" pointer-events=\"none\">";
        append_escaped(out, span.name);
        out += "</text>\n";
    }
}

void draw_legend(std::string& out, const Categories& categories, const LegendFlow& flow,
                 const Layout& layout) {
    for (std::size_t i = 0; i < categories.list.size(); ++i) {
        const double y = layout.legend_y + legend_row * static_cast<double>(flow.row[i]);
        out += "<rect class=\"swatch\" x=\"" + px(flow.x[i]) + "\" y=\"" + px(y) + "\" width=\"" +
               px(swatch) + "\" height=\"" + px(swatch) + "\" fill=\"" +
               categories.list[i].colour.fill + "\"/>\n";
        out += "<text class=\"category\" x=\"" + px(flow.x[i] + swatch + 6.0) + "\" y=\"" +
               px(y + swatch - 2.0) + "\">";
        append_escaped(out, shortened(category_label(categories.list[i].name), max_label_chars));
        out += "</text>\n";
    }
}

}  // namespace

std::string timeline_svg(const Timeline& timeline) {
    timeline.check();
    const Categories categories = assign_colours(timeline);
    const LegendFlow legend = flow_legend(categories);
    const Layout layout = lay_out(timeline, legend.rows);

    std::string out;
    out.reserve(1024 + 320 * timeline.spans.size());
    const std::string w = px(width), h = px(layout.height);
    out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + w +
           "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h +
           "\" font-family=\"sans-serif\" font-size=\"" + px(font_size) + "\">\n";
    out += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h +
           "\" fill=\"#ffffff\"/>\n";
    draw_title(out, timeline, layout);
    draw_lanes(out, timeline, layout);
    draw_axis(out, layout);
    for (std::size_t i = 0; i < timeline.spans.size(); ++i)
        draw_span(out, timeline.spans[i], categories.list[categories.of_span[i]].colour, layout);
    draw_legend(out, categories, legend, layout);
    out += "</svg>\n";
    return out;
}

void write_timeline_svg(const Timeline& timeline, const std::string& path) {
    const std::string text = timeline_svg(timeline);
    errno = 0;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (out) out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();  // flushes: a full disk shows up here, not in write()
    if (!out)
        throw std::runtime_error("cannot write the timeline picture to '" + path + "': " +
                                 (errno != 0 ? std::strerror(errno) : "reason unknown"));
}

}  // namespace dualrt::samples
