#include "progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

namespace dualrt::samples {
namespace {

// Columns of the terminal on stderr (80 when it does not say), so the line never wraps: \r only
// returns to the start of the last screen row.
std::size_t terminal_columns() {
    winsize size{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    return 80;
}

}  // namespace

Progress::Progress(ProgressMode mode, std::size_t total) : style_(Style::none), total_(total) {
    const bool terminal = isatty(STDERR_FILENO) == 1;
    if (mode == ProgressMode::never) style_ = Style::none;
    else if (terminal) style_ = Style::in_place;
    else if (mode == ProgressMode::always) style_ = Style::lines;
}

Progress::~Progress() { clear(); }

void Progress::step(const std::string& what) {
    ++steps_;
    if (style_ == Style::none) return;
    std::string line = "[" + std::to_string(steps_) + "/" +
                       std::to_string(std::max(total_, steps_)) + "] " + what;
    if (style_ == Style::lines) {
        std::cerr << line << "\n" << std::flush;
        return;
    }
    line = line.substr(0, terminal_columns() - 1);
    // What the program printed so far goes first (stdout and stderr may share the terminal).
    std::cout.flush();
    const std::size_t pad = drawn_ > line.size() ? drawn_ - line.size() : 0;
    std::cerr << '\r' << line << std::string(pad, ' ') << std::flush;
    drawn_ = line.size() + pad;
}

void Progress::clear() {
    if (style_ != Style::in_place || drawn_ == 0) return;
    std::cerr << '\r' << std::string(drawn_, ' ') << '\r' << std::flush;
    drawn_ = 0;
}

}  // namespace dualrt::samples
