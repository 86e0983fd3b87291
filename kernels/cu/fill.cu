// fill: out[i] = value for every i < n. Twin of kernels/cl/fill.cl.
#include "dualrt_kernel.cuh"

extern "C" __global__ void fill(float* out, float value, uint n) {
    const size_t i = get_global_id(0);
    if (i < n) out[i] = value;
}
