// Copy kernels: the yardsticks of the kernel ladders (copy_f32, offset_copy_f32, stride_copy_f32,
// copy_2d_f32). Twin of kernels/cl/copy.cl, which says what each one does and how to launch it.
// `__restrict__` (src and dst never overlap) lets the compiler issue a thread's loads before its
// stores, and lets it read src through the read-only data cache.
#include "dualrt_kernel.cuh"

extern "C" __global__ void copy_f32(uint n, const float* __restrict__ src,
                                    float* __restrict__ dst) {
    const size_t i = get_global_id(0);
    if (i < n) dst[i] = src[i];
}

extern "C" __global__ void offset_copy_f32(uint n, uint offset, const float* __restrict__ src,
                                           float* __restrict__ dst) {
    const size_t i = get_global_id(0);
    if (i < n) dst[i + offset] = src[i + offset];
}

extern "C" __global__ void stride_copy_f32(uint n, uint stride, const float* __restrict__ src,
                                           float* __restrict__ dst) {
    const size_t i = get_global_id(0);
    if (i < n) dst[i * stride] = src[i * stride];
}

// The transpose ladder's geometry (transpose.cu): blocks of TILE x TILE_ROWS threads, each block
// one TILE x TILE tile, each thread TILE / TILE_ROWS elements of one column of it.
#define TILE 64
#define TILE_ROWS 4
#define PER_ITEM (TILE / TILE_ROWS)  // elements per thread

// A plain copy with exactly the transpose kernels' geometry and per-thread work, so that the
// ladder's "% of copy" compares access patterns alone.
extern "C" __global__ void copy_2d_f32(uint width, uint height, const float* __restrict__ src,
                                       float* __restrict__ dst) {
    const uint x = (uint)get_group_id(0) * TILE + (uint)get_local_id(0);
    const uint y0 = (uint)get_group_id(1) * TILE + (uint)get_local_id(1);
    if (x >= width) return;  // no barrier here, so threads past the edge may leave early
    // One address per thread, stepped TILE_ROWS rows at a time: PER_ITEM addresses of 64 bits
    // take 60 registers instead of 32, which halves the threads an SM holds.
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
