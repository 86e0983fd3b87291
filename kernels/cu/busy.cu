// busy: `iterations` dependent fused multiply-adds per element. Twin of kernels/cl/busy.cl.
#include "dualrt_kernel.cuh"

extern "C" __global__ void busy(float* data, uint n, uint iterations) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
    float v = data[i];
    for (uint k = 0; k < iterations; ++k) v = fmaf(v, 0.9999f, 0.0001f);
    data[i] = v;
}
