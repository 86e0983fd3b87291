// triad: c = a + s * b over n elements. Twin of kernels/cl/stream.cl, which says why it is an
// explicit fma.
#include "dualrt_kernel.cuh"

extern "C" __global__ void triad(uint n, float s, const float* __restrict__ a,
                                 const float* __restrict__ b, float* __restrict__ c) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = fmaf(s, b[i], a[i]);
}
