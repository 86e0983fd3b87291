// A kernel with a built-in kernel's name (kernels/cu/saxpy.cu). Twin of saxpy_again.cl.
#include "dualrt_kernel.cuh"

extern "C" __global__ void saxpy(uint n, float a, const float* x, float* y) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] - y[i];
}
