#include "options.hpp"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <stdexcept>

namespace dualrt::samples {
namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

std::optional<std::size_t> parse_bytes(std::string_view text) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    if (digits == 0) return std::nullopt;
    std::size_t value = 0;
    for (std::size_t i = 0; i < digits; ++i) {
        const auto digit = static_cast<std::size_t>(text[i] - '0');
        if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    struct Unit {
        const char* suffix;
        int shift;
    };
    static const Unit units[] = {{"", 0},     {"b", 0},   {"k", 10},   {"kb", 10}, {"kib", 10},
                                 {"m", 20},   {"mb", 20}, {"mib", 20}, {"g", 30},  {"gb", 30},
                                 {"gib", 30}, {"t", 40},  {"tb", 40},  {"tib", 40}};
    const std::string suffix = lower(text.substr(digits));
    int shift = -1;
    for (const Unit& unit : units)
        if (suffix == unit.suffix) shift = unit.shift;
    if (shift < 0) return std::nullopt;
    if (value > (std::numeric_limits<std::size_t>::max() >> shift)) return std::nullopt;
    return value << shift;
}

std::string format_bytes(std::size_t bytes) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    double value = static_cast<double>(bytes);
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    if (value == static_cast<double>(static_cast<std::size_t>(value)))
        std::snprintf(text, sizeof text, "%zu %s", static_cast<std::size_t>(value), units[unit]);
    else
        std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

CLI::Validator byte_size() {
    return CLI::Validator(
        [](std::string& value) -> std::string {
            const auto size = parse_bytes(value);
            if (!size) return "'" + value + "' is not a size (examples: 4096, 64K, 256M, 1GiB)";
            if (*size == 0) return "the size must be more than 0";
            value = std::to_string(*size);
            return {};
        },
        "", "BYTES");
}

namespace {

enum class Kind { text, integer, bytes, flag };

struct Value {
    Kind kind = Kind::text;
    std::string text;
    long long integer = 0;
    std::size_t bytes = 0;
    bool flag = false;
    CLI::Option* option = nullptr;
};

std::string with_default(const std::string& help, const std::string& default_value) {
    return default_value.empty() ? help : help + " (default: " + default_value + ")";
}

}  // namespace

struct Args::State {
    State(std::string program_name, std::string description, SharedOptions shared_options)
        : program(std::move(program_name)),
          shared(shared_options),
          app(std::move(description), program) {}

    Value& add(const std::string& name, Kind kind) {
        Value& value = values[name];
        if (value.option != nullptr)
            throw std::logic_error("option --" + name + " registered twice");
        value.kind = kind;
        return value;
    }
    const Value& find(const std::string& name) const {
        const auto found = values.find(name);
        if (found == values.end())
            throw std::logic_error("option --" + name + " was never registered");
        return found->second;
    }
    const Value& find(const std::string& name, Kind kind) const {
        const Value& value = find(name);
        if (value.kind != kind)
            throw std::logic_error("option --" + name + " is asked for as another kind of value");
        return value;
    }

    std::string program;
    SharedOptions shared;
    CLI::App app;
    std::map<std::string, Value> values;  // map nodes stay put: CLI11 writes into them
};

Args::~Args() = default;

CLI::App& Args::app() { return state_->app; }

Args::Args(std::string program, std::string description, SharedOptions shared)
    : state_(std::make_unique<State>(std::move(program), std::move(description), shared)) {
    CLI::App& app = state_->app;
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    auto formatter = std::make_shared<CLI::Formatter>();
    formatter->label("Usage", "usage");
    formatter->label("OPTIONS", "options");
    formatter->column_width(24);
    app.formatter(formatter);
    Value& backend = state_->add("backend", Kind::text);
    backend.option = app.add_option("--backend", backend.text,
                                    std::string("auto, cuda or opencl (default: ") + env_backend +
                                        ", else auto)")
                         ->check(CLI::IsMember({"auto", "cuda", "opencl"}))
                         ->option_text("NAME");
    Value& device = state_->add("device", Kind::text);
    device.option = app.add_option("--device", device.text,
                                   std::string("device index or name substring within the "
                                               "backend (default: ") +
                                       env_device + ", else the first)")
                        ->option_text("SEL");
    if (shared.csv) add_text("csv", "FILE", "also write every row to FILE as CSV", "");
    if (shared.progress) {
        add_flag("progress",
                 "report progress on stderr, one line per step, also when stderr is "
                 "not a terminal");
        add_flag("no-progress",
                 "report no progress (by default a terminal shows one line, "
                 "updated in place)");
    }
}

void Args::add_text(const std::string& name, const std::string& placeholder,
                    const std::string& help, const std::string& default_value) {
    Value& value = state_->add(name, Kind::text);
    value.text = default_value;
    value.option =
        state_->app.add_option("--" + name, value.text, with_default(help, default_value))
            ->option_text(placeholder);
}

void Args::add_integer(const std::string& name, const std::string& placeholder,
                       const std::string& help, long long default_value, long long min,
                       long long max) {
    if (default_value < min || default_value > max)
        throw std::logic_error("option --" + name + ": default outside its range");
    Value& value = state_->add(name, Kind::integer);
    value.integer = default_value;
    value.option = state_->app
                       .add_option("--" + name, value.integer,
                                   with_default(help, std::to_string(default_value)))
                       ->check(CLI::Range(min, max))
                       ->option_text(placeholder);
}

void Args::add_bytes(const std::string& name, const std::string& placeholder,
                     const std::string& help, const std::string& default_value) {
    const auto bytes = parse_bytes(default_value);
    if (!bytes) throw std::logic_error("option --" + name + ": default is not a size");
    Value& value = state_->add(name, Kind::bytes);
    value.bytes = *bytes;
    value.option =
        state_->app.add_option("--" + name, value.bytes, with_default(help, default_value))
            ->transform(byte_size())
            ->option_text(placeholder);
}

void Args::add_flag(const std::string& name, const std::string& help) {
    Value& value = state_->add(name, Kind::flag);
    value.option = state_->app.add_flag("--" + name, value.flag, help);
}

std::optional<int> Args::parse(int argc, const char* const* argv) {
    try {
        state_->app.parse(argc, argv);
        // Checked here rather than with CLI11's excludes(), which would clutter the usage.
        if (state_->shared.progress && flag("progress") && flag("no-progress"))
            throw CLI::ValidationError("--progress and --no-progress contradict each other");
    } catch (const CLI::CallForHelp&) {
        std::cout << usage();
        return 0;
    } catch (const CLI::ParseError& e) {
        std::cerr << state_->program << ": " << e.what() << "\nrun '" << state_->program
                  << " --help' for the options\n";
        return 2;
    }
    return std::nullopt;
}

const std::string& Args::text(const std::string& name) const {
    return state_->find(name, Kind::text).text;
}

long long Args::integer(const std::string& name) const {
    return state_->find(name, Kind::integer).integer;
}

std::size_t Args::bytes(const std::string& name) const {
    return state_->find(name, Kind::bytes).bytes;
}

bool Args::flag(const std::string& name) const { return state_->find(name, Kind::flag).flag; }

bool Args::given(const std::string& name) const { return state_->find(name).option->count() > 0; }

const std::string& Args::csv_path() const {
    static const std::string none;
    return state_->shared.csv ? text("csv") : none;
}

ProgressMode Args::progress_mode() const {
    if (!state_->shared.progress) return ProgressMode::automatic;
    if (flag("no-progress")) return ProgressMode::never;
    if (flag("progress")) return ProgressMode::always;
    return ProgressMode::automatic;
}

Selection Args::selection() const {
    Selection selection = Selection::from_environment();
    if (given("backend")) selection.backend = text("backend");
    if (given("device")) selection.device = text("device");
    return selection;
}

std::string Args::usage() const { return state_->app.help(); }

}  // namespace dualrt::samples
