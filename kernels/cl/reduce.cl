// reduce: the sum-reduction ladder of Harris's "Optimizing Parallel Reduction in CUDA" (and Kirk
// & Hwu), fp32 and int32, one kernel per rung and type. Twin of kernels/cu/reduce.cu: the same
// rungs in the same order. OpenCL C 1.2 has no templates, so each rung is a macro that defines
// its helper for one element type, instantiated for float and int; the kernels at the end call
// them. (Comments stay outside the macros: a // comment would swallow the line continuation.)
//
// Every kernel is reduce_<type>_<rung>_<name>(in, out, scratch, n): the work-groups together
// read in[0, n) and each writes the sum of its share to out[group]. The host runs a kernel again
// over those partial sums until one value is left (bench/reduce/reduce_rungs.cpp has the
// passes). Work-groups are a power of two of at least 64 work-items, one dimension; `scratch`
// holds one element per work-item.
//
// Only barrier() synchronises work-items here: OpenCL promises nothing about warps or lockstep
// execution, so the CUDA twin's warp shuffles become local-memory steps with a barrier each.
// The one exception is rung 5 on NVIDIA's OpenCL, which reaches the warp shuffle through PTX
// (see there).

// --- Loading ----------------------------------------------------------------------------------

// Rungs 1-3: one element per work-item, 0 past the end (a partial last group adds nothing).
#define DEFINE_LOAD_ONE(T)                                           \
    T load_one_##T(const __global T* in, uint n) {                   \
        const size_t i = get_global_id(0);                           \
        return i < n ? in[i] : (T)0;                                 \
    }

// Rungs 4-5: each group covers twice its size, and each work-item adds its two elements (one
// group size apart, so both loads stay coalesced) before anything goes to local memory: half
// the work-items of rung 3 were idle after the first step.
#define DEFINE_LOAD_TWO(T)                                           \
    T load_two_##T(const __global T* in, uint n) {                   \
        const size_t size = get_local_size(0);                       \
        const size_t i = get_group_id(0) * 2 * size + get_local_id(0); \
        T sum = i < n ? in[i] : (T)0;                                \
        if (i + size < n) sum += in[i + size];                       \
        return sum;                                                  \
    }

// --- Rung 1: interleaved addressing, divergent branching ---------------------------------------
// Step s adds the element s away into every 2s-th slot. `lid % (2 * s)` selects work-items
// scattered over every warp, so all warps stay busy with mostly idle lanes, and % is slow.
#define DEFINE_RUNG_1(T)                                                                      \
    void rung_1_interleaved_divergent_##T(const __global T* in, __global T* out,             \
                                          __local T* scratch, uint n) {                      \
        const uint lid = get_local_id(0), size = get_local_size(0);                          \
        scratch[lid] = load_one_##T(in, n);                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        for (uint s = 1; s < size; s *= 2) {                                                  \
            if (lid % (2 * s) == 0) scratch[lid] += scratch[lid + s];                         \
            barrier(CLK_LOCAL_MEM_FENCE);                                                     \
        }                                                                                     \
        if (lid == 0) out[get_group_id(0)] = scratch[0];                                      \
    }

// --- Rung 2: interleaved addressing, no divergence ---------------------------------------------
// The same pairs, but work-item k handles slot 2sk: the active work-items are the first ones, so
// whole warps retire. The strided slots now collide in local-memory banks.
#define DEFINE_RUNG_2(T)                                                                      \
    void rung_2_interleaved_strided_##T(const __global T* in, __global T* out,               \
                                        __local T* scratch, uint n) {                        \
        const uint lid = get_local_id(0), size = get_local_size(0);                          \
        scratch[lid] = load_one_##T(in, n);                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        for (uint s = 1; s < size; s *= 2) {                                                  \
            const uint index = 2 * s * lid;                                                   \
            if (index < size) scratch[index] += scratch[index + s];                           \
            barrier(CLK_LOCAL_MEM_FENCE);                                                     \
        }                                                                                     \
        if (lid == 0) out[get_group_id(0)] = scratch[0];                                      \
    }

// --- Rung 3: sequential addressing -------------------------------------------------------------
// The first half adds the second half, then the first quarter the second quarter...: contiguous
// slots, no bank conflicts, the active work-items first.
#define DEFINE_HALVE_TO_ONE(T)                                                                \
    void halve_to_one_##T(__local T* scratch) {                                               \
        const uint lid = get_local_id(0);                                                     \
        for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {                                 \
            if (lid < s) scratch[lid] += scratch[lid + s];                                    \
            barrier(CLK_LOCAL_MEM_FENCE);                                                     \
        }                                                                                     \
    }

#define DEFINE_RUNG_3(T)                                                                      \
    void rung_3_sequential_##T(const __global T* in, __global T* out, __local T* scratch,     \
                               uint n) {                                                      \
        const uint lid = get_local_id(0);                                                     \
        scratch[lid] = load_one_##T(in, n);                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        halve_to_one_##T(scratch);                                                            \
        if (lid == 0) out[get_group_id(0)] = scratch[0];                                      \
    }

// --- Rung 4: first add during load -------------------------------------------------------------
#define DEFINE_RUNG_4(T)                                                                      \
    void rung_4_first_add_##T(const __global T* in, __global T* out, __local T* scratch,      \
                              uint n) {                                                       \
        const uint lid = get_local_id(0);                                                     \
        scratch[lid] = load_two_##T(in, n);                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        halve_to_one_##T(scratch);                                                            \
        if (lid == 0) out[get_group_id(0)] = scratch[0];                                      \
    }

// --- Rung 5: unrolled last warp ----------------------------------------------------------------
// Once 64 partial sums are left, the loop is unrolled by hand, as in the CUDA twin. The original
// dropped the barriers there, relying on a warp of 32 running in lockstep; OpenCL has no such
// unit (work-groups may run in any interleaving, PoCL's even as loops), so every step keeps its
// barrier, met by the whole work-group. What the rung saves there is the loop's control.
//
// NVIDIA's OpenCL (recognised by its cl_nv_pragma_unroll extension, the usual test) compiles to
// PTX and accepts inline PTX, whose shfl.sync is defined whatever the scheduling: it exchanges
// registers among the lanes its mask names, all 32 of which execute it. Work-items 0-31 of a
// 1-D work-group are warp 0 there, as in CUDA, so the last warp does what the CUDA twin does:
// five shuffles instead of five barriers of the whole work-group (1.3x the CUDA time with them,
// on an H200).
#ifdef cl_nv_pragma_unroll
float shuffle_down_float(float v, uint delta) {
    float r;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(delta));
    return r;
}
int shuffle_down_int(int v, uint delta) {
    int r;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(delta));
    return r;
}
#define DEFINE_LAST_WARP(T)                                                                   \
    void last_warp_##T(__local T* scratch, __global T* out) {                                 \
        const uint lid = get_local_id(0);                                                     \
        if (lid < 32) {                                                                       \
            T sum = scratch[lid] + scratch[lid + 32];                                         \
            sum += shuffle_down_##T(sum, 16);                                                 \
            sum += shuffle_down_##T(sum, 8);                                                  \
            sum += shuffle_down_##T(sum, 4);                                                  \
            sum += shuffle_down_##T(sum, 2);                                                  \
            sum += shuffle_down_##T(sum, 1);                                                  \
            if (lid == 0) out[get_group_id(0)] = sum;                                         \
        }                                                                                     \
    }
#else
#define DEFINE_LAST_WARP(T)                                                                   \
    void last_warp_##T(__local T* scratch, __global T* out) {                                 \
        const uint lid = get_local_id(0);                                                     \
        if (lid < 32) scratch[lid] += scratch[lid + 32];                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        if (lid < 16) scratch[lid] += scratch[lid + 16];                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        if (lid < 8) scratch[lid] += scratch[lid + 8];                                        \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        if (lid < 4) scratch[lid] += scratch[lid + 4];                                        \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        if (lid < 2) scratch[lid] += scratch[lid + 2];                                        \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        if (lid == 0) out[get_group_id(0)] = scratch[0] + scratch[1];                         \
    }
#endif

#define DEFINE_RUNG_5(T)                                                                      \
    DEFINE_LAST_WARP(T)                                                                       \
    void rung_5_unrolled_warp_##T(const __global T* in, __global T* out, __local T* scratch,  \
                                  uint n) {                                                   \
        const uint lid = get_local_id(0);                                                     \
        scratch[lid] = load_two_##T(in, n);                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        for (uint s = get_local_size(0) / 2; s > 32; s /= 2) {                                \
            if (lid < s) scratch[lid] += scratch[lid + s];                                    \
            barrier(CLK_LOCAL_MEM_FENCE);                                                     \
        }                                                                                     \
        last_warp_##T(scratch, out);                                                          \
    }

// --- Rung 6: several elements per work-item ----------------------------------------------------
// A fixed number of groups (a few per compute unit, chosen by the host) stride over the whole
// input, so each work-item adds many elements in registers and the tree at the end is paid once
// per group, not once per 512 elements. Memory is read 16 bytes per load, four independent loads
// per iteration, to keep enough bytes in flight to saturate the memory.
//
// 16-byte loads need 16-byte addresses, and a view may start at any element: the `head` elements
// (0-3) before the first such address and the ones past the last whole vector (0-3) are added one
// by one, by the first work-items. The group's sum then goes through local memory (where the
// CUDA twin shuffles within warps).
#define DEFINE_RUNG_6(T, T4)                                                                  \
    void rung_6_grid_stride_##T(const __global T* restrict in, __global T* restrict out,     \
                                __local T* scratch, uint n) {                                 \
        const size_t gid = get_global_id(0), stride = get_global_size(0);                     \
        const size_t misaligned = ((size_t)in / sizeof(T)) % 4;                               \
        const size_t head = (4 - misaligned) % 4 < n ? (4 - misaligned) % 4 : n;              \
        const size_t vectors = (n - head) / 4;                                                \
        const size_t tail = head + 4 * vectors;                                               \
        const __global T4* vin = (const __global T4*)(in + head);                             \
                                                                                              \
        T sum = gid < head ? in[gid] : (T)0;                                                  \
        if (tail + gid < n) sum += in[tail + gid];                                            \
        T4 acc = (T4)(0);                                                                     \
        size_t i = gid;                                                                       \
        for (; i + 3 * stride < vectors; i += 4 * stride) {                                   \
            const T4 a = vin[i], b = vin[i + stride], c = vin[i + 2 * stride],               \
                     d = vin[i + 3 * stride];                                                 \
            acc += a;                                                                         \
            acc += b;                                                                         \
            acc += c;                                                                         \
            acc += d;                                                                         \
        }                                                                                     \
        for (; i < vectors; i += stride) acc += vin[i];                                       \
        sum += (acc.x + acc.y) + (acc.z + acc.w);                                             \
                                                                                              \
        const uint lid = get_local_id(0);                                                     \
        scratch[lid] = sum;                                                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        halve_to_one_##T(scratch);                                                            \
        if (lid == 0) out[get_group_id(0)] = scratch[0];                                      \
    }

#define DEFINE_RUNGS(T, T4) \
    DEFINE_LOAD_ONE(T)      \
    DEFINE_LOAD_TWO(T)      \
    DEFINE_HALVE_TO_ONE(T)  \
    DEFINE_RUNG_1(T)        \
    DEFINE_RUNG_2(T)        \
    DEFINE_RUNG_3(T)        \
    DEFINE_RUNG_4(T)        \
    DEFINE_RUNG_5(T)        \
    DEFINE_RUNG_6(T, T4)

DEFINE_RUNGS(float, float4)
DEFINE_RUNGS(int, int4)

// --- The kernels: fp32 -------------------------------------------------------------------------

__kernel void reduce_f32_1_interleaved_divergent(const __global float* restrict in,
                                                 __global float* restrict out,
                                                 __local float* scratch, uint n) {
    rung_1_interleaved_divergent_float(in, out, scratch, n);
}

__kernel void reduce_f32_2_interleaved_strided(const __global float* restrict in,
                                               __global float* restrict out,
                                               __local float* scratch, uint n) {
    rung_2_interleaved_strided_float(in, out, scratch, n);
}

__kernel void reduce_f32_3_sequential(const __global float* restrict in,
                                      __global float* restrict out, __local float* scratch,
                                      uint n) {
    rung_3_sequential_float(in, out, scratch, n);
}

__kernel void reduce_f32_4_first_add(const __global float* restrict in,
                                     __global float* restrict out, __local float* scratch,
                                     uint n) {
    rung_4_first_add_float(in, out, scratch, n);
}

__kernel void reduce_f32_5_unrolled_warp(const __global float* restrict in,
                                         __global float* restrict out, __local float* scratch,
                                         uint n) {
    rung_5_unrolled_warp_float(in, out, scratch, n);
}

__kernel void reduce_f32_6_grid_stride(const __global float* restrict in,
                                       __global float* restrict out, __local float* scratch,
                                       uint n) {
    rung_6_grid_stride_float(in, out, scratch, n);
}

// --- The kernels: int32 ------------------------------------------------------------------------

__kernel void reduce_i32_1_interleaved_divergent(const __global int* restrict in,
                                                 __global int* restrict out,
                                                 __local int* scratch, uint n) {
    rung_1_interleaved_divergent_int(in, out, scratch, n);
}

__kernel void reduce_i32_2_interleaved_strided(const __global int* restrict in,
                                               __global int* restrict out, __local int* scratch,
                                               uint n) {
    rung_2_interleaved_strided_int(in, out, scratch, n);
}

__kernel void reduce_i32_3_sequential(const __global int* restrict in,
                                      __global int* restrict out, __local int* scratch, uint n) {
    rung_3_sequential_int(in, out, scratch, n);
}

__kernel void reduce_i32_4_first_add(const __global int* restrict in,
                                     __global int* restrict out, __local int* scratch, uint n) {
    rung_4_first_add_int(in, out, scratch, n);
}

__kernel void reduce_i32_5_unrolled_warp(const __global int* restrict in,
                                         __global int* restrict out, __local int* scratch,
                                         uint n) {
    rung_5_unrolled_warp_int(in, out, scratch, n);
}

__kernel void reduce_i32_6_grid_stride(const __global int* restrict in,
                                       __global int* restrict out, __local int* scratch,
                                       uint n) {
    rung_6_grid_stride_int(in, out, scratch, n);
}
