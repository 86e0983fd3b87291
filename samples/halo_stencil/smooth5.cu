// smooth5: a 5-point smoothing of one chunk of a long signal, weights (1 2 2 2 1) / 8; see
// smooth5.cl for the layout of `in` and why the result is the same bits everywhere. Twin of
// smooth5.cl.
#include "dualrt_kernel.cuh"

extern "C" __global__ void smooth5(const float* in, float* out, uint n, uint halo_before,
                                   uint halo_after) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const long long last = (long long)halo_before + n + halo_after - 1;
    const long long c = (long long)halo_before + (long long)i;
    const float l2 = in[c - 2 > 0 ? c - 2 : 0], l1 = in[c - 1 > 0 ? c - 1 : 0];
    const float r1 = in[c + 1 < last ? c + 1 : last], r2 = in[c + 2 < last ? c + 2 : last];
    out[i] = (((l2 + r2) + 2.0f * (l1 + r1)) + 2.0f * in[c]) * 0.125f;
}
