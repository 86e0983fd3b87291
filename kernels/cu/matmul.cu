// matmul: the SGEMM ladder, C = A * B in fp32 with row-major A (m x k), B (k x n) and C (m x n),
// for any m, n, k (1 included). Twin of kernels/cl/matmul.cl, kept line for line alike so that
// both backends give NVIDIA's compiler the same program. Dimension 0 of every launch runs along
// the columns of C (n), dimension 1 along its rows (m); the host's launch recipe for each rung,
// with its geometry, is bench/matmul/matmul_rungs.cpp.
// Every rung sums the products of an output in the order of k, one fmaf each (the zeros that pad
// a partial tile add nothing), so all rungs compute the same bits on either backend.
//
// Every local tile is declared 16-byte aligned, although rungs 2 to 5 read it one float at a
// time: NVIDIA's compilers merge consecutive local reads into 128-bit ones only where they
// can prove the alignment. nvcc compiles a whole program, so its ptxas knows where each tile
// lies. NVIDIA's OpenCL hands its PTX to ptxas as relocatable code (its build log matches
// `ptxas -c`), which knows only the declared alignment. With 4 bytes, rungs 3 to 5 keep
// scalar reads there and take 1.24x to 1.58x the time of their CUDA twins (docs/ladders.md).
#include "dualrt_kernel.cuh"

// A float4 access needs a 16-byte aligned address: rows whose length is a multiple of 4 floats,
// starting on a 16-byte boundary (a buffer view may start anywhere).
__device__ inline bool rows_are_float4(const float* p, uint row_length) {
    return row_length % 4 == 0 && ((size_t)p & 15) == 0;
}

// --- Rung 1: naive. One output per work-item, every operand read from global memory. ---------

extern "C" __global__ void matmul_naive(const float* __restrict__ a,
                                        const float* __restrict__ b, float* __restrict__ c,
                                        uint m, uint n, uint k) {
    const uint col = (uint)get_global_id(0);
    const uint row = (uint)get_global_id(1);
    if (row >= m || col >= n) return;
    const float* a_row = a + (size_t)row * k;
    float sum = 0.0f;
    for (uint p = 0; p < k; ++p) sum = fmaf(a_row[p], b[(size_t)p * n + col], sum);
    c[(size_t)row * n + col] = sum;
}

// --- Rungs 2 and 3: 16 x 16 outputs per work-group of 16 x 16, one output per work-item. -----

#define T16 16

// Rung 2: the group's 16 rows of A pass through local memory in 16 x 16 tiles (each element read
// from global memory once per group instead of 16 times); B still comes from global memory.
extern "C" __global__ void matmul_tile_a(const float* __restrict__ a,
                                         const float* __restrict__ b, float* __restrict__ c,
                                         uint m, uint n, uint k) {
    __shared__ __align__(16) float a_tile[T16][T16];
    const uint tx = (uint)get_local_id(0), ty = (uint)get_local_id(1);
    const uint col = (uint)get_group_id(0) * T16 + tx;
    const uint row = (uint)get_group_id(1) * T16 + ty;
    float sum = 0.0f;
    for (uint k0 = 0; k0 < k; k0 += T16) {
        a_tile[ty][tx] = row < m && k0 + tx < k ? a[(size_t)row * k + k0 + tx] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (col < n) {
            const float* b_col = b + (size_t)k0 * n + col;
            const uint depth = min(k - k0, (uint)T16);
            if (depth == T16) {
#pragma unroll
                for (uint p = 0; p < T16; ++p)
                    sum = fmaf(a_tile[ty][p], b_col[(size_t)p * n], sum);
            } else {
                for (uint p = 0; p < depth; ++p)
                    sum = fmaf(a_tile[ty][p], b_col[(size_t)p * n], sum);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n) c[(size_t)row * n + col] = sum;
}

// Rung 3: classic tiling, A and B tiles both in local memory. Elements outside the matrices are
// loaded as zeros, so a partial tile needs no other care.
extern "C" __global__ void matmul_tiled(const float* __restrict__ a,
                                        const float* __restrict__ b, float* __restrict__ c,
                                        uint m, uint n, uint k) {
    __shared__ __align__(16) float a_tile[T16][T16];
    __shared__ __align__(16) float b_tile[T16][T16];
    const uint tx = (uint)get_local_id(0), ty = (uint)get_local_id(1);
    const uint col = (uint)get_group_id(0) * T16 + tx;
    const uint row = (uint)get_group_id(1) * T16 + ty;
    float sum = 0.0f;
    for (uint k0 = 0; k0 < k; k0 += T16) {
        a_tile[ty][tx] = row < m && k0 + tx < k ? a[(size_t)row * k + k0 + tx] : 0.0f;
        b_tile[ty][tx] = k0 + ty < k && col < n ? b[(size_t)(k0 + ty) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint p = 0; p < T16; ++p) sum = fmaf(a_tile[ty][p], b_tile[p][tx], sum);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < m && col < n) c[(size_t)row * n + col] = sum;
}

// --- Rung 4: 1-D register blocking. A 64 x 64 block of C per work-group of 64 x 4; each
// work-item keeps 16 outputs of one column in registers, so one B value read from local memory
// serves 16 multiply-adds. A warp shares its row of work-items (ty), so its A reads broadcast.

#define R1_BM 64
#define R1_BN 64
#define R1_BK 8
#define R1_TM 16       // outputs per work-item, down one column
#define R1_THREADS 256  // 64 x 4
#define R1_LOADS (R1_BM * R1_BK / R1_THREADS)  // tile elements each work-item loads (A, and B)

extern "C" __global__ void matmul_reg1d(const float* __restrict__ a,
                                        const float* __restrict__ b, float* __restrict__ c,
                                        uint m, uint n, uint k) {
    __shared__ __align__(16) float a_tile[R1_BM][R1_BK];
    __shared__ __align__(16) float b_tile[R1_BK][R1_BN];
    const uint tx = (uint)get_local_id(0), ty = (uint)get_local_id(1);
    const uint t = ty * R1_BN + tx;
    const uint row0 = (uint)get_group_id(1) * R1_BM;
    const uint col0 = (uint)get_group_id(0) * R1_BN;
    float acc[R1_TM];
#pragma unroll
    for (uint i = 0; i < R1_TM; ++i) acc[i] = 0.0f;
    for (uint k0 = 0; k0 < k; k0 += R1_BK) {
#pragma unroll
        for (uint l = 0; l < R1_LOADS; ++l) {
            const uint e = t + l * R1_THREADS;
            const uint ar = e / R1_BK, ap = e % R1_BK;  // consecutive work-items along k
            a_tile[ar][ap] = row0 + ar < m && k0 + ap < k
                                 ? a[(size_t)(row0 + ar) * k + k0 + ap] : 0.0f;
            const uint bp = e / R1_BN, bc = e % R1_BN;  // consecutive work-items along n
            b_tile[bp][bc] = k0 + bp < k && col0 + bc < n
                                 ? b[(size_t)(k0 + bp) * n + col0 + bc] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint p = 0; p < R1_BK; ++p) {
            const float bv = b_tile[p][tx];
#pragma unroll
            for (uint i = 0; i < R1_TM; ++i) acc[i] = fmaf(a_tile[ty * R1_TM + i][p], bv, acc[i]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint col = col0 + tx;
#pragma unroll
    for (uint i = 0; i < R1_TM; ++i) {
        const uint row = row0 + ty * R1_TM + i;
        if (row < m && col < n) c[(size_t)row * n + col] = acc[i];
    }
}

// --- Rungs 5 and 6: 2-D register blocking. A 128 x 128 block of C per work-group of 16 x 16;
// each work-item keeps 8 x 8 outputs in registers, so per step along k it reads 8 values of A and
// 8 of B from local memory for 64 multiply-adds. The A tile is stored transposed (k-major), so
// the 8 A values of a work-item are consecutive in local memory like its 8 B values. Its rows
// are padded by 4 floats: the transposed stores then hit 32 different banks, and rows stay
// 16-byte aligned for float4 reads.

#define R2_BM 128
#define R2_BN 128
#define R2_BK 8
#define R2_TM 8
#define R2_TN 8
#define R2_THREADS 256                   // 16 x 16
#define R2_A_PITCH (R2_BM + 4)           // floats per k-row of the transposed A tile
#define R2_LOADS (R2_BM * R2_BK / R2_THREADS)  // scalar tile elements each work-item loads

// Rung 5: scalar loads everywhere; each work-item owns an 8 x 8 square of C. Its 8 B values
// are consecutive, so a warp's 16 columns of work-items read local memory at a stride of 8
// floats: 4-way bank conflicts, which rung 6 removes.
extern "C" __global__ void matmul_reg2d(const float* __restrict__ a,
                                        const float* __restrict__ b, float* __restrict__ c,
                                        uint m, uint n, uint k) {
    // a_tile[p][r] = A[row0 + r][k0 + p], b_tile[p][q] = B[k0 + p][col0 + q]
    __shared__ __align__(16) float a_tile[R2_BK][R2_A_PITCH];
    __shared__ __align__(16) float b_tile[R2_BK][R2_BN];
    const uint tx = (uint)get_local_id(0), ty = (uint)get_local_id(1);
    const uint t = ty * (R2_BN / R2_TN) + tx;
    const uint row0 = (uint)get_group_id(1) * R2_BM;
    const uint col0 = (uint)get_group_id(0) * R2_BN;
    float acc[R2_TM][R2_TN];
#pragma unroll
    for (uint i = 0; i < R2_TM; ++i)
#pragma unroll
        for (uint j = 0; j < R2_TN; ++j) acc[i][j] = 0.0f;
    for (uint k0 = 0; k0 < k; k0 += R2_BK) {
#pragma unroll
        for (uint l = 0; l < R2_LOADS; ++l) {
            const uint e = t + l * R2_THREADS;
            const uint ar = e / R2_BK, ap = e % R2_BK;
            a_tile[ap][ar] = row0 + ar < m && k0 + ap < k
                                 ? a[(size_t)(row0 + ar) * k + k0 + ap] : 0.0f;
            const uint bp = e / R2_BN, bc = e % R2_BN;
            b_tile[bp][bc] = k0 + bp < k && col0 + bc < n
                                 ? b[(size_t)(k0 + bp) * n + col0 + bc] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint p = 0; p < R2_BK; ++p) {
            float a_frag[R2_TM], b_frag[R2_TN];
#pragma unroll
            for (uint i = 0; i < R2_TM; ++i) a_frag[i] = a_tile[p][ty * R2_TM + i];
#pragma unroll
            for (uint j = 0; j < R2_TN; ++j) b_frag[j] = b_tile[p][tx * R2_TN + j];
#pragma unroll
            for (uint i = 0; i < R2_TM; ++i)
#pragma unroll
                for (uint j = 0; j < R2_TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#pragma unroll
    for (uint i = 0; i < R2_TM; ++i) {
        const uint row = row0 + ty * R2_TM + i;
#pragma unroll
        for (uint j = 0; j < R2_TN; ++j) {
            const uint col = col0 + tx * R2_TN + j;
            if (row < m && col < n) c[(size_t)row * n + col] = acc[i][j];
        }
    }
}

// Rung 6: rung 5 with float4 accesses and double buffering.
//   - Global loads of the tiles are one float4 of A and one of B per work-item, where rows are
//     float4-aligned; otherwise (k or n not a multiple of 4, an unaligned view) four bounds-checked
//     scalars. Either way elements outside the matrices load as zeros.
//   - A work-item owns rows {4ty..4ty+3, 64+4ty..64+4ty+3} and the same pattern of columns, so
//     its local-memory reads are float4s that a warp's 16 columns of work-items take from 16
//     consecutive float4s (no bank conflicts), and its stores of C are float4s that a warp
//     writes as whole 256-byte runs.
//   - Two local tiles: the next tile is fetched into registers while the current one is used,
//     then stored into the other buffer; one barrier per step along k.

#define V_HALF 64                    // the work-item's second row (column) group starts here
#define V_TILE_A (R2_BK * R2_A_PITCH)  // floats per transposed A buffer
#define V_TILE_B (R2_BK * R2_BN)       // floats per B buffer

// The four floats at `p`, the first of them element `col` of a row of `cols`; zeros for those
// past the row's end, and all four when the row is outside the matrix (`row_in` false).
__device__ inline float4 load4(const float* __restrict__ p, bool row_in, uint col, uint cols,
                               bool vector_ok) {
    if (vector_ok) return row_in && col < cols ? *(const float4*)p : make_float4(0, 0, 0, 0);
    float4 v = make_float4(0, 0, 0, 0);
    if (row_in) {
        if (col < cols) v.x = p[0];
        if (col + 1 < cols) v.y = p[1];
        if (col + 2 < cols) v.z = p[2];
        if (col + 3 < cols) v.w = p[3];
    }
    return v;
}

// Elements [col, col + 4) of row `row` of C (m x n), those inside it.
__device__ inline void store4(float* __restrict__ c, uint m, uint n, uint row, uint col,
                              bool vector_ok, float v0, float v1, float v2, float v3) {
    if (row >= m) return;
    float* p = c + (size_t)row * n + col;
    if (vector_ok) {
        if (col < n) *(float4*)p = make_float4(v0, v1, v2, v3);
        return;
    }
    if (col < n) p[0] = v0;
    if (col + 1 < n) p[1] = v1;
    if (col + 2 < n) p[2] = v2;
    if (col + 3 < n) p[3] = v3;
}

extern "C" __global__ void matmul_vec4(const float* __restrict__ a,
                                       const float* __restrict__ b, float* __restrict__ c,
                                       uint m, uint n, uint k) {
    // a_tile[.][p][r] = A[row0 + r][k0 + p], b_tile[.][p][q] = B[k0 + p][col0 + q]
    __shared__ __align__(16) float a_tile[2][V_TILE_A];
    __shared__ __align__(16) float b_tile[2][V_TILE_B];
    const uint tx = (uint)get_local_id(0), ty = (uint)get_local_id(1);
    const uint t = ty * (R2_BN / R2_TN) + tx;
    const uint row0 = (uint)get_group_id(1) * R2_BM;
    const uint col0 = (uint)get_group_id(0) * R2_BN;
    const bool a_vec = rows_are_float4(a, k);
    const bool b_vec = rows_are_float4(b, n);
    const bool c_vec = rows_are_float4(c, n);
    // Which float4 of the tiles this work-item fetches: A row t/2, k-offset 0 or 4; B k-row t/32,
    // column 4 * (t % 32). A warp reads 16 rows x 32 bytes of A and one 512-byte row of B.
    const uint ar = t / 2, ap = (t % 2) * 4;
    const uint bp = t / 32, bc = (t % 32) * 4;

    float acc[R2_TM][R2_TN];
#pragma unroll
    for (uint i = 0; i < R2_TM; ++i)
#pragma unroll
        for (uint j = 0; j < R2_TN; ++j) acc[i][j] = 0.0f;

    // Where the fetches read, advanced along k by one tile per step.
    const float* a_at = a + (size_t)(row0 + ar) * k + ap;
    const float* b_at = b + (size_t)bp * n + col0 + bc;
    const size_t b_step = (size_t)R2_BK * n;
    const bool a_row_in = row0 + ar < m;
    float4 a_next = load4(a_at, a_row_in, ap, k, a_vec);
    float4 b_next = load4(b_at, bp < k, col0 + bc, n, b_vec);
    uint cur = 0;
    for (uint k0 = 0;; k0 += R2_BK) {
        // Store the fetched tile into buffer `cur`; the barrier that ended the previous step
        // guarantees nobody still reads it (it was last used two steps ago).
        float* a_store = a_tile[cur] + ap * R2_A_PITCH + ar;
        a_store[0 * R2_A_PITCH] = a_next.x;
        a_store[1 * R2_A_PITCH] = a_next.y;
        a_store[2 * R2_A_PITCH] = a_next.z;
        a_store[3 * R2_A_PITCH] = a_next.w;
        *(float4*)(b_tile[cur] + bp * R2_BN + bc) = b_next;
        barrier(CLK_LOCAL_MEM_FENCE);

        // Fetch the next tile while this one is in use: its latency hides behind the arithmetic.
        const bool more = k0 + R2_BK < k;
        if (more) {
            a_at += R2_BK;
            b_at += b_step;
            a_next = load4(a_at, a_row_in, k0 + R2_BK + ap, k, a_vec);
            b_next = load4(b_at, k0 + R2_BK + bp < k, col0 + bc, n, b_vec);
        }
        // One base address per tile and constant offsets from it: the compiler keeps two
        // registers for the 32 float4 reads below instead of an address for each.
        const float* a_use = a_tile[cur] + ty * 4;
        const float* b_use = b_tile[cur] + tx * 4;
#pragma unroll
        for (uint p = 0; p < R2_BK; ++p) {
            const float4 a_lo = *(const float4*)(a_use + p * R2_A_PITCH);
            const float4 a_hi = *(const float4*)(a_use + p * R2_A_PITCH + V_HALF);
            const float4 b_lo = *(const float4*)(b_use + p * R2_BN);
            const float4 b_hi = *(const float4*)(b_use + p * R2_BN + V_HALF);
            const float a_frag[R2_TM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w,
                                         a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float b_frag[R2_TN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w,
                                         b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (uint i = 0; i < R2_TM; ++i)
#pragma unroll
                for (uint j = 0; j < R2_TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
        }
        if (!more) break;
        cur ^= 1;
    }

#pragma unroll
    for (uint i = 0; i < R2_TM; ++i) {
        const uint row = row0 + (i < 4 ? ty * 4 + i : V_HALF + ty * 4 + i - 4);
        store4(c, m, n, row, col0 + tx * 4, c_vec, acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        store4(c, m, n, row, col0 + V_HALF + tx * 4, c_vec, acc[i][4], acc[i][5], acc[i][6],
               acc[i][7]);
    }
}
