#include "args.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <stdexcept>

namespace dualrt::samples {
namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::optional<long long> parse_integer(const std::string& text) {
    if (text.empty()) return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
    return value;
}

}  // namespace

std::optional<std::size_t> parse_bytes(std::string_view text) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
        ++digits;
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
    static const Unit units[] = {{"", 0},    {"b", 0},    {"k", 10},   {"kb", 10},  {"kib", 10},
                                 {"m", 20},  {"mb", 20},  {"mib", 20}, {"g", 30},   {"gb", 30},
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

Args::Option Args::make(const std::string& name, const std::string& placeholder,
                        const std::string& help, const std::string& default_value, Kind kind) {
    Option option;
    option.name = name;
    option.placeholder = placeholder;
    option.help = help;
    option.default_value = default_value;
    option.kind = kind;
    return option;
}

Args::Args(std::string program, std::string description, SharedOptions shared)
    : program_(std::move(program)), description_(std::move(description)), shared_(shared) {
    add_flag("help", "print this help and exit");
    Option backend = make("backend", "NAME",
                          std::string("auto, cuda or opencl (default: ") + env_backend +
                              ", else auto)",
                          "", Kind::choice);
    backend.choices = {"auto", "cuda", "opencl"};
    add(std::move(backend));
    add_text("device", "SEL",
             std::string("device index or name substring within the backend (default: ") +
                 env_device + ", else the first)",
             "");
    if (shared_.csv) add_text("csv", "FILE", "also write every row to FILE as CSV", "");
    if (shared_.progress) {
        add_flag("progress", "report progress on stderr, one line per step, also when stderr is "
                             "not a terminal");
        add_flag("no-progress", "report no progress (by default a terminal shows one line, "
                                "updated in place)");
    }
}

Args::Option& Args::add(Option option) {
    for (const auto& existing : options_)
        if (existing.name == option.name)
            throw std::logic_error("option --" + option.name + " registered twice");
    option.value = option.default_value;
    options_.push_back(std::move(option));
    return options_.back();
}

void Args::add_text(const std::string& name, const std::string& placeholder,
                    const std::string& help, const std::string& default_value) {
    add(make(name, placeholder, help, default_value, Kind::text));
}

void Args::add_integer(const std::string& name, const std::string& placeholder,
                       const std::string& help, long long default_value, long long min,
                       long long max) {
    Option option = make(name, placeholder, help, std::to_string(default_value), Kind::integer);
    option.min = min;
    option.max = max;
    add(std::move(option));
}

void Args::add_bytes(const std::string& name, const std::string& placeholder,
                     const std::string& help, const std::string& default_value) {
    add(make(name, placeholder, help, default_value, Kind::bytes));
}

void Args::add_flag(const std::string& name, const std::string& help) {
    add(make(name, "", help, "", Kind::flag));
}

const Args::Option& Args::find(const std::string& name) const {
    for (const auto& option : options_)
        if (option.name == name) return option;
    throw std::logic_error("option --" + name + " was never registered");
}

std::string Args::check_value(const Option& option, const std::string& value) {
    switch (option.kind) {
    case Kind::integer: {
        const auto number = parse_integer(value);
        if (!number) return "'" + value + "' is not a whole number";
        if (*number < option.min || *number > option.max)
            return value + " is outside " + std::to_string(option.min) + ".." +
                   std::to_string(option.max);
        return {};
    }
    case Kind::bytes: {
        const auto size = parse_bytes(value);
        if (!size) return "'" + value + "' is not a size (examples: 4096, 64K, 256M, 1GiB)";
        if (*size == 0) return "the size must be more than 0";
        return {};
    }
    case Kind::choice: {
        std::string list;
        for (const auto& choice : option.choices) {
            if (value == choice) return {};
            list += (list.empty() ? "" : ", ") + choice;
        }
        return "'" + value + "' is not one of " + list;
    }
    case Kind::text:
    case Kind::flag:
        return {};
    }
    return {};
}

int Args::fail(const std::string& message) const {
    std::cerr << program_ << ": " << message << "\n\n" << usage();
    return 2;
}

std::optional<int> Args::parse(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0 || arg.size() == 2)
            return fail("unexpected argument '" + arg + "' (options start with --)");
        const auto equals = arg.find('=');
        const std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos
                                                                           : equals - 2);
        Option* option = nullptr;
        for (auto& candidate : options_)
            if (candidate.name == name) option = &candidate;
        if (option == nullptr) return fail("unknown option --" + name);
        if (option->kind == Kind::flag) {
            if (equals != std::string::npos)
                return fail("option --" + name + " takes no value");
            option->value = "1";
            option->given = true;
            if (name == "help") {
                std::cout << usage();
                return 0;
            }
            continue;
        }
        std::string value;
        if (equals != std::string::npos) {
            value = arg.substr(equals + 1);
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            return fail("option --" + name + " needs a value (" + option->placeholder + ")");
        }
        const std::string problem = check_value(*option, value);
        if (!problem.empty()) return fail("bad value for --" + name + ": " + problem);
        option->value = value;
        option->given = true;
    }
    if (shared_.progress && given("progress") && given("no-progress"))
        return fail("--progress and --no-progress contradict each other");
    return std::nullopt;
}

const std::string& Args::text(const std::string& name) const { return find(name).value; }

long long Args::integer(const std::string& name) const {
    const Option& option = find(name);
    const auto value = parse_integer(option.value);
    if (option.kind != Kind::integer || !value)
        throw std::logic_error("option --" + name + " is not a valid integer option");
    return *value;
}

std::size_t Args::bytes(const std::string& name) const {
    const Option& option = find(name);
    const auto value = parse_bytes(option.value);
    if (option.kind != Kind::bytes || !value)
        throw std::logic_error("option --" + name + " is not a valid size option");
    return *value;
}

bool Args::flag(const std::string& name) const { return find(name).given; }

bool Args::given(const std::string& name) const { return find(name).given; }

const std::string& Args::csv_path() const {
    static const std::string none;
    return shared_.csv ? text("csv") : none;
}

ProgressMode Args::progress_mode() const {
    if (!shared_.progress) return ProgressMode::automatic;
    if (given("no-progress")) return ProgressMode::never;
    if (given("progress")) return ProgressMode::always;
    return ProgressMode::automatic;
}

Selection Args::selection() const {
    Selection selection = Selection::from_environment();
    if (given("backend")) selection.backend = text("backend");
    if (given("device")) selection.device = text("device");
    return selection;
}

std::string Args::usage() const {
    std::string out = "usage: " + program_ + " [options]\n" + description_ + "\n\noptions:\n";
    std::vector<std::string> left;
    std::size_t width = 0;
    for (const auto& option : options_) {
        left.push_back("--" + option.name +
                       (option.placeholder.empty() ? "" : " " + option.placeholder));
        width = std::max(width, left.back().size());
    }
    for (std::size_t i = 0; i < options_.size(); ++i) {
        const Option& option = options_[i];
        out += "  " + left[i] + std::string(width - left[i].size() + 2, ' ') + option.help;
        if (!option.default_value.empty()) out += " (default: " + option.default_value + ")";
        out += "\n";
    }
    return out;
}

}  // namespace dualrt::samples
