// index_2d / index_3d: each work-item writes its linear index. Twin of kernels/cl/index.cl.
#include "dualrt_kernel.cuh"

extern "C" __global__ void index_2d(uint* out, uint width, uint height) {
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    if (x < width && y < height) out[y * width + x] = (uint)(y * width + x);
}

extern "C" __global__ void index_3d(uint* out, uint width, uint height, uint depth) {
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    const size_t z = get_global_id(2);
    if (x < width && y < height && z < depth)
        out[(z * height + y) * width + x] = (uint)((z * height + y) * width + x);
}
