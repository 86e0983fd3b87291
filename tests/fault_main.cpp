// The fault suite's main: device faults and memory exhaustion on the device DUALRT_BACKEND /
// DUALRT_DEVICE select. Each CTest entry runs one case in a process of its own, since a kernel
// fault leaves the device unusable for the rest of the process. A CPU device is a skip (exit 77):
// there a wild write hits the host process itself, and exhausting the device's memory would
// exhaust the host's.
#define DOCTEST_CONFIG_IMPLEMENT
#include "support.hpp"

#include <cstdio>

namespace {

dualrt::Device& selected() {
    static dualrt::Device device;
    return device;
}

}  // namespace

const dualrt::Device& test::device() { return selected(); }

int main(int argc, char** argv) {
    const auto selection = dualrt::Selection::from_environment();
    try {
        selected() = dualrt::select(selection);
    } catch (const dualrt::Error& e) {
        if (e.errc() == dualrt::Errc::unavailable) {
            std::printf("SKIPPED: %s: %s\n", selection.backend.c_str(), e.what());
            return 77;
        }
        std::fprintf(stderr, "cannot select a device: %s\n", e.what());
        return 1;
    }
    const auto& info = selected().info();
    if (info.type == dualrt::DeviceType::cpu || info.shares_host_memory) {
        std::printf("SKIPPED: %s device '%s' works in the host's memory: a faulting kernel would "
                    "crash this process and exhausting its memory would exhaust the host's; the "
                    "fault suite runs on GPUs only\n",
                    dualrt::to_string(info.backend), info.name.c_str());
        return 77;
    }
    std::printf("dualrt fault suite on %s device %d '%s'\n", dualrt::to_string(info.backend),
                info.index, info.name.c_str());
    std::fflush(stdout);
    doctest::Context context(argc, argv);
    const int result = context.run();
    selected() = dualrt::Device();
    return result;
}
