// The argument checks of Pipeline::run: every bad input is a dualrt::Error naming what was wrong
// and what was expected, raised before anything is enqueued. Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include "run/chunk_scheduler.hpp"

#include <cstddef>
#include <string>

namespace dualrt::detail {

// The run's arrays, checked: all of one length, none null (unless empty), the length whole rows
// of a row halo, in_place possible. `operation` names the call in the errors.
RunArrays checked_arrays(const HostSide* inputs, std::size_t input_count,
                         const HostSide* outputs, std::size_t output_count, const Halo& halo,
                         bool in_place, const char* operation);
// The same into `arrays`, whose storage a caller that runs again and again keeps.
void checked_arrays(const HostSide* inputs, std::size_t input_count, const HostSide* outputs,
                    std::size_t output_count, const Halo& halo, bool in_place,
                    const char* operation, RunArrays& arrays);

// The run's arrays as `device` sees them. An OpenCL HostBuffer is pinned for its own context
// alone: another device's driver takes it for pageable memory (8 GB/s on NVIDIA's OpenCL). So a
// range dualrt pinned for another device is registered with this one the first time
// (pin_also_for: milliseconds per 100 MiB, once for the range's life); where the driver refuses,
// the array is staged for this device like a pageable one. Memory pinned by other means keeps
// the caller's word.
RunArrays as_seen_by(RunArrays arrays, backend::DeviceImpl& device);
void mark_as_seen_by(RunArrays& arrays, backend::DeviceImpl& device);  // the same, in place

// The chunks must be at least as large as the halo wherever a chunk has a neighbour: a halo
// reaching past the neighbour is almost always a mistake of units (rows against elements).
void check_halo_fits(const Halo& halo, const std::vector<std::size_t>& sizes,
                     const char* operation);

// A key naming a layout of arrays (element sizes, pinned or staged) and its halo: runs of one
// layout share what the planner learns from them. The second form writes it into `key`, whose
// storage a caller that looks layouts up on every run keeps from run to run.
std::string layout_key(const RunArrays& arrays);
void layout_key(const RunArrays& arrays, std::string& key);
// Whether `a` and `b` have one layout key, without making it.
bool same_layout(const RunArrays& a, const RunArrays& b);

}  // namespace dualrt::detail
