// The transpose ladder (fp32): out = in^T for a row-major `in` of `height` rows and `width`
// columns. Twin of kernels/cl/transpose.cl, which describes the rungs and the launch geometry
// (blocks of TILE x TILE_ROWS threads, one TILE x TILE tile each, as copy_2d_f32 in copy.cu).
#include "dualrt_kernel.cuh"

#define TILE 64                      // must equal copy.cu's
#define TILE_ROWS 4                  // must equal copy.cu's
#define PER_ITEM (TILE / TILE_ROWS)  // elements per thread

// Rung 1: reads rows of `in` (coalesced), writes columns of `out` (strided by `height`).
extern "C" __global__ void transpose_naive_f32(uint width, uint height,
                                               const float* __restrict__ in,
                                               float* __restrict__ out) {
    const size_t x = get_group_id(0) * TILE + get_local_id(0);   // column of `in`
    const size_t y0 = get_group_id(1) * TILE + get_local_id(1);  // first row of `in`
    if (x >= width) return;  // no barrier here, so threads past the edge may leave early
    // All loads before any store: several loads per thread in flight.
    float v[PER_ITEM];
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k) {
        const size_t y = y0 + k * TILE_ROWS;
        v[k] = y < height ? in[y * width + x] : 0.0f;
    }
    // Row x of `out`: neighbouring threads write `height` floats apart.
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k) {
        const size_t y = y0 + k * TILE_ROWS;
        if (y < height) out[x * height + y] = v[k];
    }
}

// Rungs 2 and 3: through a shared-memory tile with rows of `pitch` floats (TILE, or TILE + 1 for
// no bank conflicts). Inlined with a constant pitch, so each kernel gets constant addressing.
__device__ __forceinline__ void transpose_through_tile(uint width, uint height,
                                                       const float* __restrict__ in,
                                                       float* __restrict__ out, float* tile,
                                                       const uint pitch) {
    const uint tx = (uint)get_local_id(0);
    const uint ty = (uint)get_local_id(1);
    // Read this block's tile of `in` along its rows, all loads before any use. Slots past the
    // matrix's edge get a 0 that no valid output reads.
    const size_t in_x = get_group_id(0) * TILE + tx;
    const size_t in_y0 = get_group_id(1) * TILE + ty;
    float v[PER_ITEM];
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k) {
        const size_t y = in_y0 + k * TILE_ROWS;
        v[k] = in_x < width && y < height ? in[y * width + in_x] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k) tile[(ty + k * TILE_ROWS) * pitch + tx] = v[k];
    // Every thread reaches the barrier, including those past the edge.
    barrier(CLK_LOCAL_MEM_FENCE);
    // Write the mirrored tile of `out`, again along rows: consecutive threads take consecutive
    // elements of a row of `out`, which are a column of the tile.
    const size_t out_x = get_group_id(1) * TILE + tx;
    const size_t out_y0 = get_group_id(0) * TILE + ty;
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k) {
        const size_t y = out_y0 + k * TILE_ROWS;
        if (out_x < height && y < width)
            out[y * height + out_x] = tile[tx * pitch + ty + k * TILE_ROWS];
    }
}

// Rung 2: coalesced both ways; reading a tile column is a 32-way shared-memory bank conflict.
extern "C" __global__ void transpose_coalesced_f32(uint width, uint height,
                                                   const float* __restrict__ in,
                                                   float* __restrict__ out) {
    __shared__ float tile[TILE * TILE];
    transpose_through_tile(width, height, in, out, tile, TILE);
}

// Rung 3: rows of TILE + 1 floats put the 32 elements of a tile column in 32 different banks.
extern "C" __global__ void transpose_padded_f32(uint width, uint height,
                                                const float* __restrict__ in,
                                                float* __restrict__ out) {
    __shared__ float tile[TILE * (TILE + 1)];
    transpose_through_tile(width, height, in, out, tile, TILE + 1);
}
