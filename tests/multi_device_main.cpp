// The multi-device suite's main: works on every device of every available backend (DUALRT_BACKEND
// and DUALRT_DEVICE play no part). CI gives it two PoCL devices (POCL_DEVICES="pthread pthread");
// the GPU machine gives it the GPU through CUDA and through NVIDIA's OpenCL, and PoCL's CPU. With
// fewer than two devices it exits 77 (CTest's SKIP_RETURN_CODE) with the reason.
#define DOCTEST_CONFIG_IMPLEMENT
#include <dualrt/dualrt.hpp>

#include <doctest/doctest.h>

#include <cstdio>

int main(int argc, char** argv) {
    std::vector<dualrt::Device> all;
    try {
        all = dualrt::devices();
    } catch (const dualrt::Error& e) {
        std::printf("SKIPPED: no devices could be listed: %s\n", e.what());
        return 77;
    }
    if (all.size() < 2) {
        std::printf("SKIPPED: %zu device(s) present; the multi-device suite needs two (on a "
                    "CPU-only machine: POCL_DEVICES=\"pthread pthread\")\n",
                    all.size());
        return 77;
    }
    std::printf("multi-device suite on %zu devices:\n", all.size());
    for (const auto& d : all)
        std::printf("  %s %d '%s'\n", dualrt::to_string(d.backend()), d.info().index,
                    d.name().c_str());
    doctest::Context context(argc, argv);
    return context.run();
}
