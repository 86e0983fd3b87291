// The argument checks of Pipeline::run: every bad input is a dualrt::Error naming what was wrong
// and what was expected, raised before anything is enqueued. Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include "pipeline_schedule.hpp"

#include <cstddef>
#include <string>

namespace dualrt::detail {

// The run's arrays, checked: all of one length, none null (unless empty), the length whole rows
// of a row halo, in_place possible. `operation` names the call in the errors.
RunArrays checked_arrays(const HostSide* inputs, std::size_t input_count,
                         const HostSide* outputs, std::size_t output_count, const Halo& halo,
                         bool in_place, const char* operation);

// The run's arrays as `device` sees them: an array in memory that dualrt pinned stays pinned
// only where the device can copy it by DMA (pinned_ranges.hpp). An OpenCL HostBuffer is pinned
// for its own context alone; another device would hand its driver a pointer it takes for
// pageable memory (8 GB/s on NVIDIA's OpenCL), so for that device the array is staged like a
// pageable one. Memory pinned by other means keeps the caller's word.
RunArrays as_seen_by(const RunArrays& arrays, const backend::DeviceImpl& device);

// The chunks must be at least as large as the halo wherever a chunk has a neighbour: a halo
// reaching past the neighbour is almost always a mistake of units (rows against elements).
void check_halo_fits(const Halo& halo, const std::vector<std::size_t>& sizes,
                     const char* operation);

// A key naming a layout of arrays (element sizes, pinned or staged) and its halo: runs of one
// layout share a stage model.
std::string layout_key(const RunArrays& arrays);

}  // namespace dualrt::detail
