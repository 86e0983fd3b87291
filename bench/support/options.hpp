// Command-line options in one style for every benchmark, parsed by CLI11:
//   --help, --backend NAME, --device SEL, --csv FILE, --progress, --no-progress, plus options each
//   program registers. A program without rows to write or long phases to report (dualrt-info)
//   can leave out --csv and the progress flags (SharedOptions).
// Values come as `--name VALUE` or `--name=VALUE`; given twice, the last one counts. Sizes take
// the suffixes of parse_bytes(). An unknown option or a bad value is reported on stderr and the
// program exits with code 2.
#pragma once

#include <cstddef>
#include <dualrt/runtime.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "progress.hpp"

namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace dualrt::samples {

// "256M", "64KiB", "1g", "4096" -> bytes (K, M, G, T and KiB, MiB, GiB, TiB: powers of 1024, any
// case; an optional trailing "B"). nullopt when the text is not such a size or overflows.
std::optional<std::size_t> parse_bytes(std::string_view text);

// 262144 -> "256 KiB", 1536 -> "1.5 KiB", 100 -> "100 B".
std::string format_bytes(std::size_t bytes);

// A CLI11 transform: a size as parse_bytes() reads it becomes its number of bytes; 0 is refused.
// (CLI11's headers are slow to compile, so only options.cpp and the programs that use the app
// directly include them.)
CLI::Validator byte_size();

// Which of the optional shared options a program offers (--help, --backend and --device always).
struct SharedOptions {
    bool csv = true;       // --csv FILE
    bool progress = true;  // --progress, --no-progress
};

// The options of one program: a CLI::App with the shared options, plus typed accessors by name
// for the options each program adds. Not copyable (CLI11 holds pointers to the values).
class Args {
public:
    // `program` names the program in the usage; `description` is its first lines.
    Args(std::string program, std::string description, SharedOptions shared = SharedOptions());
    ~Args();
    Args(const Args&) = delete;
    Args& operator=(const Args&) = delete;

    // Program-specific options. `placeholder` names the value in the usage ("BYTES", "N");
    // defaults are shown in the usage. A bad default is a programming error (std::logic_error).
    void add_text(const std::string& name, const std::string& placeholder, const std::string& help,
                  const std::string& default_value);
    void add_integer(const std::string& name, const std::string& placeholder,
                     const std::string& help, long long default_value, long long min,
                     long long max);
    void add_bytes(const std::string& name, const std::string& placeholder, const std::string& help,
                   const std::string& default_value);
    void add_flag(const std::string& name, const std::string& help);

    // Reads argv. Returns nullopt to go on, or the exit code to return from main: 0 after
    // printing the usage for --help, 2 after reporting a bad command line on stderr.
    std::optional<int> parse(int argc, const char* const* argv);

    // Values after parse(); asking for a name not registered, or of another kind, is a
    // programming error (std::logic_error).
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

    // The CLI11 app itself, for what the accessors above do not cover.
    CLI::App& app();

private:
    struct State;  // the CLI::App and the values it writes
    std::unique_ptr<State> state_;
};

}  // namespace dualrt::samples
