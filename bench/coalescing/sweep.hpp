// One sweep of the coalescing benchmark: a copy kernel (kernels/cl/copy.cl) run once per value
// of its offset or stride, on every device, timed and checked; the rows go into a LadderReport.
#pragma once

#include "ladder.hpp"

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dualrt::samples::coalescing {

enum class Pattern {
    offset,  // offset_copy_f32: dst[i + v] = src[i + v], v = 0..32
    stride,  // stride_copy_f32: dst[i * v] = src[i * v], v = 1..32
};

struct Sweep {
    Pattern pattern;
    std::uint32_t first, last;  // the values swept, inclusive

    const char* kernel() const;
    std::string family() const;              // "offset copy f32": the CSV's family
    std::string rung(std::uint32_t v) const;  // "offset 5", "stride 8"
    // The elements a run with value v needs in each buffer: n + v, or n * v.
    std::size_t span(std::size_t n, std::uint32_t v) const;
    // The buffer element that element i of a run with value v copies: i + v, or i * v.
    std::size_t index(std::size_t i, std::uint32_t v) const;
};

inline constexpr Sweep offset_sweep{Pattern::offset, 0, 32};
inline constexpr Sweep stride_sweep{Pattern::stride, 1, 32};

// Elements checked past a run's span (and allocated for it): a write just beyond shows.
inline constexpr std::size_t tail = 32;

// Runs `sweep` with n elements per copy on every device: per value, the destination is poisoned
// with NaN, the kernel timed (time_on_device), and the destination of the last timed run checked
// against the source, element by element, tail included: the copied elements must hold the
// source's, all others the poison.
LadderReport run_sweep(const Sweep& sweep, std::size_t n, const std::vector<Device>& devices,
                       const Args& args, Progress& progress);

}  // namespace dualrt::samples::coalescing
