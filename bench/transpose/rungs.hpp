// The rows of the transpose ladder: the copy_2d_f32 yardstick and the three transpose kernels
// (kernels/cl/transpose.cl), all launched in one geometry.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>

namespace dualrt::samples::transpose {

struct Rung {
    const char* name;    // the row's name in the table and CSV
    const char* kernel;  // the built-in kernel
    bool transposes;     // false for the copy: its output is its input
};

// The copy first: its rate is the "% of copy" column's reference.
inline constexpr const char* copy_rung = "copy";
inline constexpr Rung rungs[] = {
    {copy_rung, "copy_2d_f32", false},
    {"1 naive", "transpose_naive_f32", true},
    {"2 coalesced (local tile)", "transpose_coalesced_f32", true},
    {"3 padded tile (no bank conflicts)", "transpose_padded_f32", true},
};

// The kernels' geometry: work-groups of tile x tile_rows work-items, one tile x tile block of
// the matrix each (the kernels require exactly this work-group size).
inline constexpr std::size_t tile = 64;
inline constexpr std::size_t tile_rows = 4;

inline dualrt::Range global_range(std::size_t width, std::size_t height) {
    return dualrt::Range((width + tile - 1) / tile * tile, (height + tile - 1) / tile * tile_rows);
}
inline dualrt::Range local_range() { return dualrt::Range(tile, tile_rows); }

}  // namespace dualrt::samples::transpose
