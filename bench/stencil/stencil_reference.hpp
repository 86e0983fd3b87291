// The host reference of the built-in stencil_blur3x3 kernel (kernels/cl/stencil.cl): the same
// additions in the same order, so it matches the device bit for bit. Header-only: the stencil
// benchmark and the Pipeline tests check against it.
#pragma once

#include <algorithm>
#include <cstddef>

namespace dualrt::samples {

// Rows [first_row, first_row + rows) of the 3x3 blur of a `width` x `height` image, edges
// clamped, into the same rows of `out`.
inline void blur3x3_rows(const float* image, float* out, std::size_t width, std::size_t height,
                         std::size_t first_row, std::size_t rows) {
    for (std::size_t y = first_row; y < std::min(height, first_row + rows); ++y) {
        const float* a = image + (y > 0 ? y - 1 : 0) * width;
        const float* b = image + y * width;
        const float* c = image + (y + 1 < height ? y + 1 : y) * width;
        for (std::size_t x = 0; x < width; ++x) {
            const std::size_t left = x > 0 ? x - 1 : 0;
            const std::size_t right = x + 1 < width ? x + 1 : x;
            const float top = (a[left] + 2.0f * a[x]) + a[right];
            const float middle = (b[left] + 2.0f * b[x]) + b[right];
            const float bottom = (c[left] + 2.0f * c[x]) + c[right];
            out[y * width + x] = ((top + 2.0f * middle) + bottom) * 0.0625f;
        }
    }
}

}  // namespace dualrt::samples
