// Zero-copy in the bandwidth benchmark: a kernel that reads its input exactly once, fed by a copy
// into device memory or reading mapped host memory in place (Device::alloc_mapped).
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::samples::bandwidth {

// The columns of zero_copy_rows: path, bytes (of input), time ms, GB/s, vs copy+kernel.
std::vector<std::string> zero_copy_header();

// Times the built-in saxpy (y = a*x + y, x read exactly once) on `bytes` of float input x in
// three ways, on one queue of `device`:
//   copy + kernel  x copied from pinned host memory (HostBuffer) to device memory, then saxpy;
//   zero-copy      saxpy reading x from a MappedBuffer in place; the timed span starts before the
//                  host's turn ends, so the hand-over (OpenCL's unmap, where a driver may move
//                  the data) is paid for in it, as a copy would be;
//   kernel alone   saxpy on x already in device memory: the floor both others approach.
// y is device memory throughout. Each figure is the median of `repetitions` runs timed with
// Queue::record() events, after warm-up runs; each path's result is checked against a CPU
// reference first, and a wrong one throws dualrt::Error. GB/s = input bytes / time (10^9 B/s);
// "vs copy+kernel" = copy+kernel time / this path's time (above 1: faster). Where the device
// cannot map host memory, the zero-copy row says so. Throws dualrt::Error
// (Errc::invalid_argument) when bytes holds no float or more than 2^32 - 1 of them, or
// repetitions < 1. Cells are plain text for a table and a CSV alike.
std::vector<std::vector<std::string>> zero_copy_rows(const Device& device, std::size_t bytes,
                                                     int repetitions);

}  // namespace dualrt::samples::bandwidth
