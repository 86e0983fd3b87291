// The device a doctest suite runs on, shared by the suites' mains (conformance, stress, faults):
// chosen once from DUALRT_BACKEND / DUALRT_DEVICE, released before the library's statics go.
#pragma once

#include <dualrt/dualrt.hpp>

namespace test {

// Selects the suite's device. Returns 0 when one was selected, 77 after printing "SKIPPED: ..."
// when the backend cannot run here (CTest's SKIP_RETURN_CODE), and 1 after printing why the
// selection failed otherwise.
int select_suite_device();

// The selected device (test::device() of support.hpp returns it), or an empty Device.
dualrt::Device& suite_device();

}  // namespace test
