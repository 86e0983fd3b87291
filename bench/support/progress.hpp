// Progress of a program's long run, on stderr, as "[k/n] what" (step k of n is under way):
//   on a terminal   one line, rewritten in place (\r) for each step and erased at the end;
//   elsewhere       (a pipe, a log file) nothing, unless --progress asks for it: then one plain
//                   line per step.
// --no-progress shows nothing anywhere. Progress never writes to stdout, so the tables and CSV of
// a benchmark are the same whatever the mode.
#pragma once

#include <cstddef>
#include <string>

namespace dualrt::samples {

enum class ProgressMode {
    automatic,  // in place on a terminal, nothing elsewhere (the default)
    always,     // --progress: in place on a terminal, plain lines elsewhere
    never,      // --no-progress
};

class Progress {
public:
    // `total` steps are expected.
    Progress(ProgressMode mode, std::size_t total);
    ~Progress();  // erases the line
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // The next step begins: shows "[k/n] what".
    void step(const std::string& what);
    // Erases the in-place line, so that what the program prints next starts on a clean line; call
    // it before printing on stdout. The next step() draws the line again.
    void clear();

    bool shown() const { return style_ != Style::none; }

private:
    enum class Style { none, in_place, lines };
    Style style_;
    std::size_t total_;
    std::size_t steps_ = 0;
    std::size_t drawn_ = 0;  // characters of the in-place line on the terminal now
};

}  // namespace dualrt::samples
