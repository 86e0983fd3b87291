// The consumer project's own kernels. Twin of consumer_ops.cl.
#include "dualrt_kernel.cuh"

extern "C" __global__ void consumer_reverse_scale(uint n, float factor, const float* in,
                                                  float* out) {
    const size_t i = get_global_id(0);
    if (i < n) out[i] = factor * in[n - 1 - i];
}
