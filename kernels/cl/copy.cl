// Copy kernels: the yardsticks of the kernel ladders. A copy reads and writes every byte once, in
// the best order there is, so its bandwidth is the most a memory-bound kernel of the same shape
// can reach. Twin of kernels/cu/copy.cu.
//
//   copy_f32         dst[i] = src[i], one element per work-item (1-D)
//   offset_copy_f32  dst[i + offset] = src[i + offset]: misaligned but still contiguous accesses
//   stride_copy_f32  dst[i * stride] = src[i * stride]: neighbouring work-items stride apart
//   copy_2d_f32      a width x height copy in the transpose kernels' launch shape (transpose.cl)
//
// The caller sizes the buffers: n + offset elements for offset_copy_f32, n * stride for
// stride_copy_f32. Indices are size_t, so n * stride past 2^32 does not wrap. `restrict` (src and
// dst never overlap) lets the compiler issue a work-item's loads before its stores.

__kernel void copy_f32(uint n, __global const float* restrict src, __global float* restrict dst) {
    const size_t i = get_global_id(0);
    if (i < n) dst[i] = src[i];
}

__kernel void offset_copy_f32(uint n, uint offset, __global const float* restrict src,
                              __global float* restrict dst) {
    const size_t i = get_global_id(0);
    if (i < n) dst[i + offset] = src[i + offset];
}

__kernel void stride_copy_f32(uint n, uint stride, __global const float* restrict src,
                              __global float* restrict dst) {
    const size_t i = get_global_id(0);
    if (i < n) dst[i * stride] = src[i * stride];
}

// The transpose ladder's geometry (see transpose.cl): a work-group of TILE x TILE_ROWS
// work-items covers a TILE x TILE tile, each work-item TILE / TILE_ROWS elements of one column
// of it, TILE_ROWS rows apart. The host launches local (TILE, TILE_ROWS) and global
// (ceil(width / TILE) * TILE, ceil(height / TILE) * TILE_ROWS).
#define TILE 64
#define TILE_ROWS 4
#define PER_ITEM (TILE / TILE_ROWS)  // elements per work-item

// A plain copy with exactly the transpose kernels' geometry and per-work-item work, so that the
// ladder's "% of copy" compares access patterns alone.
__attribute__((reqd_work_group_size(TILE, TILE_ROWS, 1)))
__kernel void copy_2d_f32(uint width, uint height, __global const float* restrict src,
                          __global float* restrict dst) {
    const uint x = (uint)get_group_id(0) * TILE + (uint)get_local_id(0);
    const uint y0 = (uint)get_group_id(1) * TILE + (uint)get_local_id(1);
    if (x >= width) return;  // no barrier here, so work-items past the edge may leave early
    // One address per work-item, stepped TILE_ROWS rows at a time, as in the CUDA twin, where
    // PER_ITEM 64-bit addresses take 60 registers and halve the threads an SM holds.
    const size_t first = (size_t)y0 * width + x, step = (size_t)TILE_ROWS * width;
    // All loads first, then all stores, as in the transpose kernels: a store waits for its value,
    // so alternating them would wait for one load at a time.
    float v[PER_ITEM];
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k)
        v[k] = y0 + k * TILE_ROWS < height ? src[first + k * step] : 0.0f;
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k)
        if (y0 + k * TILE_ROWS < height) dst[first + k * step] = v[k];
}
