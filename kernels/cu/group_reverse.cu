// group_reverse: reverses each block's slice through shared memory. Twin of
// kernels/cl/group_reverse.cl; `scratch` is dynamic shared memory (see dualrt_kernel.cuh).
#include "dualrt_kernel.cuh"

extern "C" __global__ void group_reverse(float* data, dualrt_local<float> scratch, uint n) {
    const size_t i = get_global_id(0);
    const size_t lid = get_local_id(0);
    const size_t group_start = i - lid;
    const size_t remaining = n > group_start ? n - group_start : 0;
    const size_t valid = remaining < get_local_size(0) ? remaining : get_local_size(0);
    if (lid < valid) scratch[lid] = data[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < valid) data[i] = scratch[valid - 1 - lid];
}
