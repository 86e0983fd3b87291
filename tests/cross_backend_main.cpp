// The cross-backend suite's main: finds every device of every available backend itself (so
// DUALRT_BACKEND and DUALRT_DEVICE play no part), runs every test case on all of them, and prints
// which devices were compared. Agreement between backends needs two of them: with fewer, it exits
// 77 (SKIP_RETURN_CODE in CTest) with the reason, but only after the devices that are present
// passed every check; a failure there fails the run.
#define DOCTEST_CONFIG_IMPLEMENT
#include "cross_backend.hpp"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

std::uint32_t run_seed = std::random_device{}();

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out.empty() ? "none" : out;
}

// Takes --seed=N out of the arguments (doctest does not know it) and uses it. False when N is
// not a number.
bool take_seed_option(int& argc, char** argv) {
    const std::string option = "--seed=";
    int kept = 0;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i == 0 || arg.compare(0, option.size(), option) != 0) {
            argv[kept++] = argv[i];
            continue;
        }
        const std::string value = arg.substr(option.size());
        char* end = nullptr;
        run_seed = static_cast<std::uint32_t>(std::strtoul(value.c_str(), &end, 10));
        if (value.empty() || *end != '\0') return false;
    }
    argc = kept;
    return true;
}

}  // namespace

std::vector<cross::Target>& cross::targets() {
    static std::vector<Target> list;
    return list;
}

std::uint32_t cross::seed() { return run_seed; }

int main(int argc, char** argv) {
    if (!take_seed_option(argc, argv)) {
        std::fprintf(stderr, "--seed needs a number\n");
        return 2;
    }
    std::printf("dualrt cross-backend conformance, seed %u (replay with --seed=%u)\n", run_seed,
                run_seed);

    // Backends with at least one device, and why each of the others cannot take part.
    std::vector<std::string> available, unavailable;
    bool enumeration_failed = false;
    for (const auto& status : dualrt::backends()) {
        const std::string name = dualrt::to_string(status.backend);
        if (!status.available) {
            unavailable.push_back(name + ": " + status.reason);
            continue;
        }
        try {
            const auto devices = dualrt::devices(status.backend);
            for (const auto& device : devices) {
                const auto& info = device.info();
                const std::string label = name + " device " + std::to_string(info.index) + " '" +
                                          info.name + "'";
                std::printf("  %s (platform '%s', %s)\n", label.c_str(), info.platform.c_str(),
                            dualrt::to_string(info.type));
                cross::targets().push_back({device, label});
            }
            if (devices.empty())
                unavailable.push_back(name + ": available, but it lists no device");
            else
                available.push_back(name + " (" + std::to_string(devices.size()) + " device" +
                                    (devices.size() == 1 ? ")" : "s)"));
        } catch (const std::exception& e) {
            // The backend said it was available: failing to list its devices is a bug.
            std::fprintf(stderr, "FAILED: listing the devices of %s: %s\n", name.c_str(), e.what());
            enumeration_failed = true;
        }
    }
    std::fflush(stdout);

    doctest::Context context(argc, argv);
    const int result = context.run();
    if (context.shouldExit()) return result;  // --help, --list-test-cases ...

    std::printf("cross-backend summary: %zu device(s) of %zu backend(s) compared; available: %s\n",
                cross::targets().size(), available.size(), join(available).c_str());
    for (const auto& target : cross::targets())
        std::printf("  %s: %zu kernel runs, %zu failed or disagreed\n", target.label.c_str(),
                    target.runs, target.failed);
    cross::targets().clear();  // release the devices before the library's statics go

    if (result != 0 || enumeration_failed) return result != 0 && result != 77 ? result : 1;
    if (available.size() < 2) {
        std::printf("SKIPPED: cross-backend agreement needs two backends; available: %s; "
                    "unavailable: %s\n",
                    join(available).c_str(), join(unavailable).c_str());
        return 77;
    }
    return 0;
}
