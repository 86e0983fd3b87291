// A kernel with a built-in kernel's name (kernels/cl/saxpy.cl). Twin of saxpy_again.cu.
__kernel void saxpy(uint n, float a, __global const float* x, __global float* y) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] - y[i];
}
