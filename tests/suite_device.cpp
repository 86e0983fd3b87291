#include "suite_device.hpp"

#include <cstdio>

namespace test {

dualrt::Device& suite_device() {
    static dualrt::Device device;
    return device;
}

const dualrt::Device& device() { return suite_device(); }

int select_suite_device() {
    const auto selection = dualrt::Selection::from_environment();
    try {
        suite_device() = dualrt::select(selection);
        return 0;
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
}

}  // namespace test
