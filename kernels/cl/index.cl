// index_2d / index_3d: every work-item writes its own linear index, so a test can see that a 2-D
// or 3-D range covered each element exactly once and in the right place.
__kernel void index_2d(__global uint* out, uint width, uint height) {
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    if (x < width && y < height) out[y * width + x] = (uint)(y * width + x);
}

__kernel void index_3d(__global uint* out, uint width, uint height, uint depth) {
    const size_t x = get_global_id(0);
    const size_t y = get_global_id(1);
    const size_t z = get_global_id(2);
    if (x < width && y < height && z < depth)
        out[(z * height + y) * width + x] = (uint)((z * height + y) * width + x);
}
