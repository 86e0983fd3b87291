// saxpy: y = a * x + y over n elements. Twin of kernels/cl/saxpy.cl.
#include "dualrt_kernel.cuh"

extern "C" __global__ void saxpy(uint n, float a, const float* __restrict__ x,
                                 float* __restrict__ y) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
