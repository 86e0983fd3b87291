// What the `reduce` benchmark measures on one device: every rung of one element type, the copy
// kernel that is the bandwidth yardstick, and CUB's DeviceReduce::Sum. Each gives a row of the
// ladder's report, checked against the CPU reference.
#pragma once

#include "ladder.hpp"
#include "vendor/vendor_baseline.hpp"

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dualrt::samples::reduce {

// The input of one element type and its exact sum. Floats are multiples of 2^-24 in [0, 1), so
// their sum over up to 2^29 elements is exact in double; int32 values are in [-m, m] with n * m
// below 2^31, so no partial sum in any order overflows.
template <typename T>
struct Input {
    std::vector<T> host;
    double sum = 0.0;      // exact
    double sum_abs = 0.0;  // for the float tolerance
};
Input<float> float_input(std::size_t n, std::uint64_t seed);
Input<std::int32_t> int_input(std::size_t n, std::uint64_t seed);

struct MeasureOptions {
    int warmup = 0;
    int repetitions = 1;
    std::size_t groups_per_unit = 0;  // rung 6's work-groups per compute unit
    std::function<void(const std::string&)> step;  // announces each measurement (progress)
};

// Every rung over `input` on `device`: one row each, timed with all passes, the result of the
// last timed run checked.
template <typename T>
std::vector<RungResult> measure_rungs(const Device& device, const Input<T>& input,
                                      const MeasureOptions& options);

// The reference row "copy": copy_f32 over n floats (2 n 4 bytes moved per run), its output
// checked. None, with `why_not` set, when the device has no copy_f32 kernel.
bool measure_copy(const Device& device, const Input<float>& input, const MeasureOptions& options,
                  RungResult& row, std::string& why_not);

// The reference row "CUB DeviceReduce::Sum" through the vendor module.
template <typename T>
RungResult measure_vendor(bench::VendorBaseline& vendor, const Device& device,
                          const Input<T>& input, const MeasureOptions& options);

// The names of the reference rows.
inline const std::string copy_rung = "copy";
inline const std::string vendor_rung = "CUB DeviceReduce::Sum";

}  // namespace dualrt::samples::reduce
