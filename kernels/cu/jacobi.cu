// jacobi_rows: one Jacobi sweep over a block of grid rows. Twin of kernels/cl/jacobi.cl, where the
// layout and why every device computes the same bits are explained.
#include "dualrt_kernel.cuh"

extern "C" __global__ void jacobi_rows(const float* __restrict__ in, float* __restrict__ out,
                                       uint width, uint first_row, uint rows) {
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    if (x >= width || y >= rows) return;
    const size_t i = ((size_t)first_row + y) * width + x;
    if (x == 0 || x + 1 == width) {
        out[i] = in[i];
        return;
    }
    out[i] = ((in[i - width] + in[i + width]) + (in[i - 1] + in[i + 1])) * 0.25f;
}
