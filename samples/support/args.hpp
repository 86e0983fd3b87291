// Command-line options in one style for every sample:
//   --help, --backend NAME, --device SEL, --csv FILE, --progress, --no-progress, plus options each
//   sample registers. A sample without rows to write or long phases to report (dualrt-info) can
//   leave out --csv and the progress flags (SharedOptions).
// Values come as `--name VALUE` or `--name=VALUE`. An unknown option or a bad value is reported
// with the usage, and the program exits with code 2.
#pragma once

#include "progress.hpp"

#include <dualrt/runtime.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dualrt::samples {

// "256M", "64KiB", "1g", "4096" -> bytes (K, M, G, T and KiB, MiB, GiB, TiB: powers of 1024, any
// case; an optional trailing "B"). nullopt when the text is not such a size or overflows.
std::optional<std::size_t> parse_bytes(std::string_view text);

// 262144 -> "256 KiB", 1536 -> "1.5 KiB", 100 -> "100 B".
std::string format_bytes(std::size_t bytes);

// Which of the optional shared options a sample offers (--help, --backend and --device always).
struct SharedOptions {
    bool csv = true;       // --csv FILE
    bool progress = true;  // --progress, --no-progress
};

class Args {
public:
    // `program` names the sample in the usage; `description` is its first lines.
    Args(std::string program, std::string description, SharedOptions shared = SharedOptions());

    // Sample-specific options. `placeholder` names the value in the usage ("BYTES", "N").
    // Defaults are text, parsed like given values.
    void add_text(const std::string& name, const std::string& placeholder,
                  const std::string& help, const std::string& default_value);
    void add_integer(const std::string& name, const std::string& placeholder,
                     const std::string& help, long long default_value, long long min,
                     long long max);
    void add_bytes(const std::string& name, const std::string& placeholder,
                   const std::string& help, const std::string& default_value);
    void add_flag(const std::string& name, const std::string& help);

    // Reads argv. Returns nullopt to go on, or the exit code to return from main: 0 after
    // printing the usage for --help, 2 after reporting a bad command line on stderr.
    std::optional<int> parse(int argc, const char* const* argv);

    // Values after parse(); asking for a name not registered is a programming error
    // (std::logic_error).
    const std::string& text(const std::string& name) const;
    long long integer(const std::string& name) const;
    std::size_t bytes(const std::string& name) const;
    bool flag(const std::string& name) const;
    bool given(const std::string& name) const;  // on the command line, not defaulted

    // DUALRT_BACKEND / DUALRT_DEVICE, each overridden by --backend / --device when given.
    Selection selection() const;
    // --csv FILE, or "" when not given (or not offered).
    const std::string& csv_path() const;
    // --progress / --no-progress (ProgressMode::automatic when neither is given or not offered).
    ProgressMode progress_mode() const;

    std::string usage() const;

private:
    enum class Kind { text, integer, bytes, flag, choice };
    struct Option {
        std::string name, placeholder, help, default_value;
        Kind kind = Kind::text;
        long long min = 0, max = 0;
        std::vector<std::string> choices;
        std::string value;
        bool given = false;
    };
    static Option make(const std::string& name, const std::string& placeholder,
                       const std::string& help, const std::string& default_value, Kind kind);
    Option& add(Option option);
    const Option& find(const std::string& name) const;
    // "" when `value` suits `option`, else why not.
    static std::string check_value(const Option& option, const std::string& value);
    int fail(const std::string& message) const;

    std::string program_, description_;
    SharedOptions shared_;
    std::vector<Option> options_;  // in registration order, for the usage
};

}  // namespace dualrt::samples
