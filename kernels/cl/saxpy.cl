// saxpy: y = a * x + y over n elements.
__kernel void saxpy(uint n, float a, __global const float* x, __global float* y) {
    const size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
