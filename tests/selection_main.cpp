// The selection suite's main: device-free tests and backend/device selection, run once without
// DUALRT_BACKEND. It passes on machines with any set of backends, including none.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
