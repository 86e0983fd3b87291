// The conformance suite's main: chooses the device from DUALRT_BACKEND / DUALRT_DEVICE (CTest
// runs this program once per backend), then runs every test case on it. A backend that cannot
// be used here is a skip with its reason (exit code 77, SKIP_RETURN_CODE in CTest), never a pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include "suite_device.hpp"
#include "support.hpp"

#include <cstdio>

int main(int argc, char** argv) {
    if (const int status = test::select_suite_device(); status != 0) return status;
    const auto& info = test::device().info();
    std::printf("dualrt conformance on %s device %d '%s' (platform '%s', %s)\n",
                dualrt::to_string(info.backend), info.index, info.name.c_str(),
                info.platform.c_str(), dualrt::to_string(info.type));
    std::fflush(stdout);

    doctest::Context context(argc, argv);
    const int result = context.run();
    test::suite_device() = dualrt::Device();  // released before the library's statics go
    return result;
}
