// Helpers of the cross-backend suite: the devices under test (every device of every available
// backend, found by its main()), the run's seed, and the check that runs one kernel case on each
// device and compares the result with the CPU reference and with the first device's result.
#pragma once

#include "support.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace cross {

// One device under test, and what happened on it (for the summary).
struct Target {
    dualrt::Device device;
    std::string label;       // "opencl device 0 'NAME'"
    std::size_t runs = 0;    // kernel runs checked on it
    std::size_t failed = 0;  // runs that threw or disagreed with the reference or the first device
};

// Every device of every available backend, CUDA first. Defined by the suite's main().
std::vector<Target>& targets();

// One seed per run, printed by main() and given back with --seed=N to replay a failure.
std::uint32_t seed();

// Fresh inputs from the run's seed (each test case starts from it, so every case replays alone).
inline test::Random random() {
    return test::Random{seed(), std::mt19937(seed())};
}

inline std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

// The smallest n >= from that is odd and not a multiple of `group`: a global size that leaves a
// partial last work-group for any power-of-two work-group the library may choose, and for
// `group`, so the kernels' bounds checks are exercised.
inline std::size_t partial_groups(std::size_t from, std::size_t group = 1) {
    std::size_t n = from;
    while (n % 2 == 0 || (group > 1 && n % group == 0)) ++n;
    return n;
}

// "" when got and want agree element by element; otherwise how many elements differ and the
// first few (index, expected, got). Elements agree when their bytes are equal (so a NaN poison
// left in an output is a mismatch), or, for floating point, when tolerance is not empty and they
// are within tolerance[i] of each other.
template <typename T>
std::string differences(const std::vector<T>& got, const std::vector<T>& want,
                        const std::vector<float>& tolerance) {
    if (got.size() != want.size())
        return "sizes differ: got " + std::to_string(got.size()) + ", expected " +
               std::to_string(want.size());
    std::size_t count = 0;
    std::string report;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::memcmp(&got[i], &want[i], sizeof(T)) == 0) continue;
        if constexpr (std::is_floating_point_v<T>) {
            if (!tolerance.empty() && std::fabs(got[i] - want[i]) <= tolerance[i]) continue;
        }
        if (++count <= 8)
            report += " [" + std::to_string(i) + "] expected " + test::show(want[i]) + ", got " +
                      test::show(got[i]) + ";";
    }
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(got.size()) +
           " elements differ:" + report;
}

// Runs one case of a kernel on every target: `run` does the whole job on one device (poisoned
// output, upload, launch, blocking download) and returns the output, guard elements included.
// Each result is checked against `reference` and against the first target's result, with the
// same tolerance (empty: exact). A device that cannot run the case is a failure, not a skip.
template <typename T>
void check_on_every_device(const std::string& what, const std::vector<T>& reference,
                           const std::vector<float>& tolerance,
                           const std::function<std::vector<T>(const dualrt::Device&)>& run) {
    CAPTURE(what);
    std::vector<T> first;
    std::string first_label;
    for (auto& target : targets()) {
        // Text as std::string: doctest 2.4 prints a const char* in INFO and FAIL_CHECK as a
        // pointer.
        INFO("device: " << target.label);
        INFO("backend: " << std::string(dualrt::to_string(target.device.backend())));
        ++target.runs;
        std::vector<T> got;
        try {
            got = run(target.device);
        } catch (const std::exception& e) {
            ++target.failed;
            FAIL_CHECK("the kernel did not run: " << std::string(e.what()));
            continue;
        }
        const auto vs_reference = differences(got, reference, tolerance);
        CHECK_MESSAGE(vs_reference.empty(), "against the CPU reference: " << vs_reference);
        std::string vs_first;
        if (first_label.empty()) {
            first = got;
            first_label = target.label;
        } else {
            vs_first = differences(got, first, tolerance);
            CHECK_MESSAGE(vs_first.empty(), "against " << first_label << ": " << vs_first);
        }
        if (!vs_reference.empty() || !vs_first.empty()) ++target.failed;
    }
}

}  // namespace cross
