// The consumer project's own kernels. Twin of consumer_ops.cu.

// out[i] = factor * in[n - 1 - i]: reversed and scaled, so a launch that ran another kernel, or
// read the arguments in another order, cannot pass.
__kernel void consumer_reverse_scale(uint n, float factor, __global const float* in,
                                     __global float* out) {
    const size_t i = get_global_id(0);
    if (i < n) out[i] = factor * in[n - 1 - i];
}
