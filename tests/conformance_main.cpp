// The conformance suite's main: chooses the device from DUALRT_BACKEND / DUALRT_DEVICE (CTest
// runs this program once per backend), then runs every test case on it. A backend that cannot
// be used here is a skip with its reason (exit code 77, SKIP_RETURN_CODE in CTest), never a pass.
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
        std::fprintf(stderr, "cannot select a device for %s=%s %s=%s: %s\n", dualrt::env_backend,
                     selection.backend.c_str(), dualrt::env_device, selection.device.c_str(),
                     e.what());
        return 1;
    }
    const auto& info = selected().info();
    std::printf("dualrt conformance on %s device %d '%s' (platform '%s', %s)\n",
                dualrt::to_string(info.backend), info.index, info.name.c_str(),
                info.platform.c_str(), dualrt::to_string(info.type));
    std::fflush(stdout);

    doctest::Context context(argc, argv);
    const int result = context.run();
    selected() = dualrt::Device();  // release the device before the library's statics go
    return result;
}
