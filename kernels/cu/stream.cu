// triad: c = a + s * b over n elements. Twin of kernels/cl/stream.cl, which says why it is an
// explicit fma.
#include "dualrt_kernel.cuh"

extern "C" __global__ void triad(uint n, float s, const float* __restrict__ a,
                                 const float* __restrict__ b, float* __restrict__ c) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = fmaf(s, b[i], a[i]);
}

// triad_pairs: the same over a and b interleaved in one array of pairs (ab[2i] = a[i],
// ab[2i + 1] = b[i]): the stream with one input array, as Pipeline ran it before it took several.
extern "C" __global__ void triad_pairs(uint n, float s, const float* __restrict__ ab,
                                       float* __restrict__ c) {
    const size_t i = get_global_id(0);
    if (i < n) c[i] = fmaf(s, ab[2 * i + 1], ab[2 * i]);
}
