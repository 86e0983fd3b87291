// The fault suite's main: device faults and memory exhaustion on the device DUALRT_BACKEND /
// DUALRT_DEVICE select. Each CTest entry runs one case in a process of its own, since a kernel
// fault leaves the device unusable for the rest of the process. A CPU device is a skip (exit 77):
// there a wild write hits the host process itself, and exhausting the device's memory would
// exhaust the host's.
#define DOCTEST_CONFIG_IMPLEMENT
#include "suite_device.hpp"
#include "support.hpp"

#include <cstdio>

int main(int argc, char** argv) {
    if (const int status = test::select_suite_device(); status != 0) return status;
    const auto& info = test::device().info();
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
    test::suite_device() = dualrt::Device();  // released before the library's statics go
    return result;
}
