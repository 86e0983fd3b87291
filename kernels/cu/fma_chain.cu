// fma_chain: compute-bound work for the work-group size sweep. Twin of kernels/cl/fma_chain.cl,
// which says what it computes and why it is shaped so. `__restrict__` as in copy.cu.
#include "dualrt_kernel.cuh"

// One step of each of the four chains.
#define FMA_CHAIN_STEP()               \
    a = fmaf(a, 0.9999f, 0.01f);       \
    b = fmaf(b, 0.9998f, 0.01f);       \
    c = fmaf(c, 0.9997f, 0.01f);       \
    d = fmaf(d, 0.9996f, 0.01f)

extern "C" __global__ void fma_chain(uint n, uint iterations, const float* __restrict__ src,
                                     float* __restrict__ dst) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    const float x = src[i];
    float a = x, b = x, c = x, d = x;
    // Four steps per pass, written out, then the rest one at a time (why: fma_chain.cl).
    for (uint pass = 0; pass < iterations / 4; ++pass) {
        FMA_CHAIN_STEP();
        FMA_CHAIN_STEP();
        FMA_CHAIN_STEP();
        FMA_CHAIN_STEP();
    }
    for (uint k = 0; k < iterations % 4; ++k) {
        FMA_CHAIN_STEP();
    }
    dst[i] = (a + b) + (c + d);
}
