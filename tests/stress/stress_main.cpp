// The stress suite's main, the twin of tests/conformance_main.cpp: chooses the device from
// DUALRT_BACKEND / DUALRT_DEVICE (CTest runs this program once per backend), reads the seed and
// the duration, then runs every test case on that device. A backend that cannot be used here is
// a skip with its reason (exit code 77, SKIP_RETURN_CODE in CTest), never a pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include "../suite_device.hpp"
#include "stress.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <unistd.h>

#include <csignal>
#include <execinfo.h>

namespace {

std::uint32_t chosen_seed = 0;
double chosen_seconds = 3.0;

// The whole of `text` as a number of the given kind, or nothing (so "3s" or "" is an error,
// never a silent default).
std::optional<unsigned long> parse_unsigned(const char* text) {
    if (text == nullptr || *text == '\0' || *text == '-') return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const unsigned long value = std::strtoul(text, &end, 0);
    if (errno != 0 || *end != '\0' || value > 0xFFFFFFFFul) return std::nullopt;
    return value;
}
std::optional<double> parse_seconds(const char* text) {
    if (text == nullptr || *text == '\0') return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    // A bounded test must stay bounded: at most an hour, and CTest's TIMEOUT is 300 s anyway.
    if (errno != 0 || *end != '\0' || !(value >= 0.0 && value <= 3600.0)) return std::nullopt;
    return value;
}

}  // namespace

std::uint32_t stress::seed() { return chosen_seed; }
double stress::seconds() { return chosen_seconds; }

std::size_t stress::rss_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t total_pages = 0, resident_pages = 0;
    if (!(statm >> total_pages >> resident_pages)) return 0;
    return resident_pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// A crash prints the stack (module+offset per frame; addr2line -e MODULE OFFSET names the line),
// after doctest's own report: doctest restores this handler and raises the signal again.
static void print_stack_and_die(int signal) {
    void* frames[64];
    const int count = ::backtrace(frames, 64);
    static const char header[] = "stack at the crash:\n";
    [[maybe_unused]] const auto written = ::write(STDERR_FILENO, header, sizeof header - 1);
    ::backtrace_symbols_fd(frames, count, STDERR_FILENO);
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

int main(int argc, char** argv) {
    std::signal(SIGSEGV, print_stack_and_die);
    std::signal(SIGBUS, print_stack_and_die);
    if (const char* text = std::getenv("DUALRT_STRESS_SEED")) {
        const auto value = parse_unsigned(text);
        if (!value) {
            std::fprintf(stderr, "DUALRT_STRESS_SEED='%s' is not a seed; expected an unsigned "
                                 "32-bit number\n", text);
            return 2;
        }
        chosen_seed = static_cast<std::uint32_t>(*value);
    } else {
        chosen_seed = std::random_device{}();
    }
    if (const char* text = std::getenv("DUALRT_STRESS_SECONDS")) {
        const auto value = parse_seconds(text);
        if (!value) {
            std::fprintf(stderr, "DUALRT_STRESS_SECONDS='%s' is not a duration; expected seconds "
                                 "from 0 to 3600, such as 3 or 0.5\n", text);
            return 2;
        }
        chosen_seconds = *value;
    }

    if (const int status = test::select_suite_device(); status != 0) return status;
    const auto& info = test::device().info();
    std::printf("dualrt stress on %s device %d '%s' (platform '%s', %s): seed %u "
                "(DUALRT_STRESS_SEED=%u replays it), %g s per timed test\n",
                dualrt::to_string(info.backend), info.index, info.name.c_str(),
                info.platform.c_str(), dualrt::to_string(info.type), chosen_seed, chosen_seed,
                chosen_seconds);
    std::fflush(stdout);

    doctest::Context context(argc, argv);
    const int result = context.run();
    test::suite_device() = dualrt::Device();  // released before the library's statics go
    return result;
}
