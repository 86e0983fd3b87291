// Twin of mismatch.cu, except that `scale` is a float here and an int there.
__kernel void mismatch(uint n, float scale, __global float* data) {
    const size_t i = get_global_id(0);
    if (i < n) data[i] *= scale;
}
