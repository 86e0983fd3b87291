// stencil_blur3x3: a 3x3 blur of a block of image rows with clamped edges. Twin of
// kernels/cl/stencil.cl, where the layout of `in` and why the result is exact are explained.
#include "dualrt_kernel.cuh"

extern "C" __global__ void stencil_blur3x3(const float* __restrict__ in, float* __restrict__ out,
                                           uint width, uint rows, uint halo_top,
                                           uint halo_bottom) {
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    if (x >= width || y >= rows) return;
    const size_t in_rows = (size_t)halo_top + rows + halo_bottom;
    const size_t row = y + halo_top;
    const size_t up = row > 0 ? row - 1 : 0;
    const size_t down = row + 1 < in_rows ? row + 1 : row;
    const size_t left = x > 0 ? x - 1 : 0;
    const size_t right = x + 1 < width ? x + 1 : x;
    const float* a = in + up * width;
    const float* b = in + row * width;
    const float* c = in + down * width;
    const float top = (a[left] + 2.0f * a[x]) + a[right];
    const float middle = (b[left] + 2.0f * b[x]) + b[right];
    const float bottom = (c[left] + 2.0f * c[x]) + c[right];
    out[y * width + x] = ((top + 2.0f * middle) + bottom) * 0.0625f;
}
