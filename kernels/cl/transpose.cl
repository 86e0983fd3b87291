// The transpose ladder (fp32): out = in^T, where `in` is a row-major matrix of `height` rows and
// `width` columns and `out` one of `width` rows and `height` columns. Twin of
// kernels/cu/transpose.cu.
//
//   rung 1  transpose_naive_f32      reads rows of `in` (coalesced), writes columns of `out`
//                                    (each work-item `height` floats from its neighbour)
//   rung 2  transpose_coalesced_f32  stages a TILE x TILE tile in local memory, so that both the
//                                    reads and the writes run along rows; reading the tile by
//                                    columns makes every work-item of a warp hit the same bank
//   rung 3  transpose_padded_f32     the same with rows of TILE + 1 floats: a column of the tile
//                                    spans all banks, and the conflicts are gone
//
// Every kernel and copy_2d_f32 (copy.cl, the ladder's yardstick) share one geometry: a
// work-group of TILE x TILE_ROWS work-items owns a TILE x TILE tile of `in`, each work-item
// PER_ITEM elements of one column of it, TILE_ROWS rows apart. A work-item issues its PER_ITEM
// loads before it uses any of them, so that several loads per work-item are in flight, and pays
// the index arithmetic and the barrier once for all of them. The host launches local
// (TILE, TILE_ROWS) and global (ceil(width / TILE) * TILE, ceil(height / TILE) * TILE_ROWS).
// Tiles that run past the matrix's edge (sizes no multiple of TILE) are bounds-checked element by
// element.
//
// Why 64 x 4 (256 work-items, 16 elements each): on an H200 at 8192^2 and 16384^2 the padded
// tile reached 0.94-0.96x of the copy of the same shape with it, against 0.85-0.87x with the
// guides' 32 x 8 (4 elements each): four times the loads in flight per work-item, and a quarter
// of the barriers per element. 64 x 8 measured the same, but NVIDIA's OpenCL gives these kernels
// a limit of 256 work-items (CL_KERNEL_WORK_GROUP_SIZE).
#define TILE 64                      // must equal copy.cl's
#define TILE_ROWS 4                  // must equal copy.cl's
#define PER_ITEM (TILE / TILE_ROWS)  // elements per work-item

__attribute__((reqd_work_group_size(TILE, TILE_ROWS, 1)))
__kernel void transpose_naive_f32(uint width, uint height, __global const float* restrict in,
                                  __global float* restrict out) {
    const size_t x = get_group_id(0) * TILE + get_local_id(0);   // column of `in`
    const size_t y0 = get_group_id(1) * TILE + get_local_id(1);  // first row of `in`
    if (x >= width) return;  // no barrier here, so work-items past the edge may leave early
    // All loads before any store: several loads per work-item in flight.
    float v[PER_ITEM];
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k) {
        const size_t y = y0 + k * TILE_ROWS;
        v[k] = y < height ? in[y * width + x] : 0.0f;
    }
    // Row x of `out`: neighbouring work-items write `height` floats apart.
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k) {
        const size_t y = y0 + k * TILE_ROWS;
        if (y < height) out[x * height + y] = v[k];
    }
}

// Rungs 2 and 3: the tile has rows of `pitch` floats (TILE, or TILE + 1 for no bank conflicts).
// Inlined with a constant pitch, so each kernel gets its own constant addressing.
static inline void transpose_through_tile(uint width, uint height,
                                          __global const float* restrict in,
                                          __global float* restrict out, __local float* tile,
                                          const uint pitch) {
    const uint tx = (uint)get_local_id(0);
    const uint ty = (uint)get_local_id(1);
    // Read this work-group's tile of `in` (tile column get_group_id(0), tile row get_group_id(1))
    // along its rows, all loads before any use. Slots past the matrix's edge get a 0 that no valid
    // output reads.
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
    // Every work-item reaches the barrier, including those past the edge.
    barrier(CLK_LOCAL_MEM_FENCE);
    // Write the mirrored tile of `out` (tile column get_group_id(1), tile row get_group_id(0)),
    // again along rows: consecutive work-items take consecutive elements of a row of `out`, which
    // are a column of the tile.
    const size_t out_x = get_group_id(1) * TILE + tx;
    const size_t out_y0 = get_group_id(0) * TILE + ty;
#pragma unroll
    for (int k = 0; k < PER_ITEM; ++k) {
        const size_t y = out_y0 + k * TILE_ROWS;
        if (out_x < height && y < width)
            out[y * height + out_x] = tile[tx * pitch + ty + k * TILE_ROWS];
    }
}

__attribute__((reqd_work_group_size(TILE, TILE_ROWS, 1)))
__kernel void transpose_coalesced_f32(uint width, uint height, __global const float* restrict in,
                                      __global float* restrict out) {
    __local float tile[TILE * TILE];
    transpose_through_tile(width, height, in, out, tile, TILE);
}

__attribute__((reqd_work_group_size(TILE, TILE_ROWS, 1)))
__kernel void transpose_padded_f32(uint width, uint height, __global const float* restrict in,
                                   __global float* restrict out) {
    __local float tile[TILE * (TILE + 1)];
    transpose_through_tile(width, height, in, out, tile, TILE + 1);
}
