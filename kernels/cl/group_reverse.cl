// group_reverse: reverses each work-group's slice of `data` through work-group local memory.
// The classic first local-memory kernel; `scratch` holds one float per work-item. Elements past
// n are left alone; a partial last group reverses only its n % group_size valid elements.
__kernel void group_reverse(__global float* data, __local float* scratch, uint n) {
    const size_t i = get_global_id(0);
    const size_t lid = get_local_id(0);
    const size_t group_start = i - lid;
    const size_t remaining = n > group_start ? n - group_start : 0;
    const size_t valid = remaining < get_local_size(0) ? remaining : get_local_size(0);
    if (lid < valid) scratch[lid] = data[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < valid) data[i] = scratch[valid - 1 - lid];
}
