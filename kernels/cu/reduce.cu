// reduce: the sum-reduction ladder of Harris's "Optimizing Parallel Reduction in CUDA" (and Kirk
// & Hwu), fp32 and int32, one kernel per rung and type. Twin of kernels/cl/reduce.cl: the same
// rungs in the same order, each a templated helper here where the .cl twin has a macro.
//
// Every kernel is reduce_<type>_<rung>_<name>(in, out, scratch, n): the work-groups together
// read in[0, n) and each writes the sum of its share to out[group]. The host runs a kernel again
// over those partial sums until one value is left (bench/reduce/reduce_rungs.cpp has the
// passes). Work-groups are a power of two of at least 64 work-items, one dimension; `scratch`
// holds one element per work-item.
#include "dualrt_kernel.cuh"

namespace {

// --- Loading ----------------------------------------------------------------------------------

// Rungs 1-3: one element per work-item, 0 past the end (a partial last group adds nothing).
template <typename T>
__device__ T load_one(const T* in, uint n) {
    const size_t i = get_global_id(0);
    return i < n ? in[i] : T(0);
}

// Rungs 4-5: each group covers twice its size, and each work-item adds its two elements (one
// group size apart, so both loads stay coalesced) before anything goes to shared memory: half
// the work-items of rung 3 were idle after the first step.
template <typename T>
__device__ T load_two(const T* in, uint n) {
    const size_t size = get_local_size(0);
    const size_t i = get_group_id(0) * 2 * size + get_local_id(0);
    T sum = i < n ? in[i] : T(0);
    if (i + size < n) sum += in[i + size];
    return sum;
}

// --- Rung 1: interleaved addressing, divergent branching ---------------------------------------
// Step s adds the element s away into every 2s-th slot. `lid % (2 * s)` selects work-items
// scattered over every warp, so all warps stay busy with mostly idle lanes, and % is slow.
template <typename T>
__device__ void rung_1_interleaved_divergent(const T* in, T* out, T* scratch, uint n) {
    const uint lid = get_local_id(0), size = get_local_size(0);
    scratch[lid] = load_one(in, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < size; s *= 2) {
        if (lid % (2 * s) == 0) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}

// --- Rung 2: interleaved addressing, no divergence ---------------------------------------------
// The same pairs, but work-item k handles slot 2sk: the active work-items are the first ones, so
// whole warps retire. The strided slots now collide in shared-memory banks.
template <typename T>
__device__ void rung_2_interleaved_strided(const T* in, T* out, T* scratch, uint n) {
    const uint lid = get_local_id(0), size = get_local_size(0);
    scratch[lid] = load_one(in, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < size; s *= 2) {
        const uint index = 2 * s * lid;
        if (index < size) scratch[index] += scratch[index + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}

// --- Rung 3: sequential addressing -------------------------------------------------------------
// The first half adds the second half, then the first quarter the second quarter...: contiguous
// slots, no bank conflicts, the active work-items first.
template <typename T>
__device__ void halve_to_one(T* scratch) {
    const uint lid = get_local_id(0);
    for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

template <typename T>
__device__ void rung_3_sequential(const T* in, T* out, T* scratch, uint n) {
    const uint lid = get_local_id(0);
    scratch[lid] = load_one(in, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    halve_to_one(scratch);
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}

// --- Rung 4: first add during load -------------------------------------------------------------
template <typename T>
__device__ void rung_4_first_add(const T* in, T* out, T* scratch, uint n) {
    const uint lid = get_local_id(0);
    scratch[lid] = load_two(in, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    halve_to_one(scratch);
    if (lid == 0) out[get_group_id(0)] = scratch[0];
}

// --- Rung 5: unrolled last warp ----------------------------------------------------------------
// Once 64 partial sums are left, one warp finishes without block-wide barriers. The original
// relied on a warp running in lockstep over `volatile` shared memory; since Volta the lanes of
// a warp are scheduled independently, so that is a race. Here the warp adds its 64 sums into
// registers and finishes with __shfl_down_sync, which synchronises the lanes it names (all 32,
// all of which take this branch: work-items 0-31 are warp 0). Unrolled by hand, as the rung says.
__device__ inline float shuffle_down(float v, int delta) {
    return __shfl_down_sync(0xffffffffu, v, delta);
}
__device__ inline int shuffle_down(int v, int delta) {
    return __shfl_down_sync(0xffffffffu, v, delta);
}

template <typename T>
__device__ void rung_5_unrolled_warp(const T* in, T* out, T* scratch, uint n) {
    const uint lid = get_local_id(0);
    scratch[lid] = load_two(in, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 32; s /= 2) {
        if (lid < s) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < 32) {
        T sum = scratch[lid] + scratch[lid + 32];
        sum += shuffle_down(sum, 16);
        sum += shuffle_down(sum, 8);
        sum += shuffle_down(sum, 4);
        sum += shuffle_down(sum, 2);
        sum += shuffle_down(sum, 1);
        if (lid == 0) out[get_group_id(0)] = sum;
    }
}

// --- Rung 6: several elements per work-item ----------------------------------------------------
// A fixed number of groups (a few per multiprocessor, chosen by the host) stride over the whole
// input, so each work-item adds many elements in registers and the tree at the end is paid once
// per group, not once per 512 elements. Memory is read 16 bytes per load, four independent loads
// per iteration, to keep enough bytes in flight to saturate HBM.
template <typename T>
struct Vec4;
template <>
struct Vec4<float> {
    typedef float4 type;
};
template <>
struct Vec4<int> {
    typedef int4 type;
};

template <typename V>
__device__ inline void add4(V& sum, const V& v) {
    sum.x += v.x;
    sum.y += v.y;
    sum.z += v.z;
    sum.w += v.w;
}

// The sum of every work-item's `v`, valid in work-item 0: each warp by shuffles, then warp 0 over
// the warps' sums (at most 32 of them), which pass through scratch.
template <typename T>
__device__ T warp_sum(T v) {
    for (int delta = 16; delta > 0; delta /= 2) v += shuffle_down(v, delta);
    return v;
}

template <typename T>
__device__ T group_sum(T v, T* scratch) {
    const uint lid = get_local_id(0), warps = get_local_size(0) / 32;
    v = warp_sum(v);
    if (lid % 32 == 0) scratch[lid / 32] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 32) v = warp_sum(lid < warps ? scratch[lid] : T(0));
    return v;
}

template <typename T>
__device__ void rung_6_grid_stride(const T* __restrict__ in, T* __restrict__ out, T* scratch,
                                   uint n) {
    typedef typename Vec4<T>::type V;
    const size_t gid = get_global_id(0), stride = get_global_size(0);
    // 16-byte loads need 16-byte addresses, and a view may start at any element: the `head`
    // elements (0-3) before the first such address and the ones past the last whole vector (0-3)
    // are added one by one, by the first work-items.
    const size_t misaligned = (reinterpret_cast<size_t>(in) / sizeof(T)) % 4;
    const size_t head = (4 - misaligned) % 4 < n ? (4 - misaligned) % 4 : n;
    const size_t vectors = (n - head) / 4;
    const size_t tail = head + 4 * vectors;
    const V* vin = reinterpret_cast<const V*>(in + head);

    T sum = gid < head ? in[gid] : T(0);
    if (tail + gid < n) sum += in[tail + gid];
    V acc = {0, 0, 0, 0};
    size_t i = gid;
    for (; i + 3 * stride < vectors; i += 4 * stride) {
        const V a = vin[i], b = vin[i + stride], c = vin[i + 2 * stride], d = vin[i + 3 * stride];
        add4(acc, a);
        add4(acc, b);
        add4(acc, c);
        add4(acc, d);
    }
    for (; i < vectors; i += stride) add4(acc, vin[i]);
    sum += (acc.x + acc.y) + (acc.z + acc.w);

    sum = group_sum(sum, scratch);
    if (get_local_id(0) == 0) out[get_group_id(0)] = sum;
}

}  // namespace

// --- The kernels: fp32 -------------------------------------------------------------------------

extern "C" __global__ void reduce_f32_1_interleaved_divergent(const float* __restrict__ in,
                                                              float* __restrict__ out,
                                                              dualrt_local<float> scratch,
                                                              uint n) {
    rung_1_interleaved_divergent(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_f32_2_interleaved_strided(const float* __restrict__ in,
                                                            float* __restrict__ out,
                                                            dualrt_local<float> scratch, uint n) {
    rung_2_interleaved_strided(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_f32_3_sequential(const float* __restrict__ in,
                                                   float* __restrict__ out,
                                                   dualrt_local<float> scratch, uint n) {
    rung_3_sequential(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_f32_4_first_add(const float* __restrict__ in,
                                                  float* __restrict__ out,
                                                  dualrt_local<float> scratch, uint n) {
    rung_4_first_add(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_f32_5_unrolled_warp(const float* __restrict__ in,
                                                      float* __restrict__ out,
                                                      dualrt_local<float> scratch, uint n) {
    rung_5_unrolled_warp(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_f32_6_grid_stride(const float* __restrict__ in,
                                                    float* __restrict__ out,
                                                    dualrt_local<float> scratch, uint n) {
    rung_6_grid_stride(in, out, scratch.get(), n);
}

// --- The kernels: int32 ------------------------------------------------------------------------

extern "C" __global__ void reduce_i32_1_interleaved_divergent(const int* __restrict__ in,
                                                              int* __restrict__ out,
                                                              dualrt_local<int> scratch, uint n) {
    rung_1_interleaved_divergent(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_i32_2_interleaved_strided(const int* __restrict__ in,
                                                            int* __restrict__ out,
                                                            dualrt_local<int> scratch, uint n) {
    rung_2_interleaved_strided(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_i32_3_sequential(const int* __restrict__ in,
                                                   int* __restrict__ out,
                                                   dualrt_local<int> scratch, uint n) {
    rung_3_sequential(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_i32_4_first_add(const int* __restrict__ in,
                                                  int* __restrict__ out,
                                                  dualrt_local<int> scratch, uint n) {
    rung_4_first_add(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_i32_5_unrolled_warp(const int* __restrict__ in,
                                                      int* __restrict__ out,
                                                      dualrt_local<int> scratch, uint n) {
    rung_5_unrolled_warp(in, out, scratch.get(), n);
}

extern "C" __global__ void reduce_i32_6_grid_stride(const int* __restrict__ in,
                                                    int* __restrict__ out,
                                                    dualrt_local<int> scratch, uint n) {
    rung_6_grid_stride(in, out, scratch.get(), n);
}
