// Twin of mismatch.cl, except that `scale` is an int here and a float there.
#include "dualrt_kernel.cuh"

extern "C" __global__ void mismatch(uint n, int scale, float* data) {
    const size_t i = get_global_id(0);
    if (i < n) data[i] *= scale;
}
