// Included by every kernels/cu/*.cu: OpenCL's names on CUDA, so a kernel twin reads like its
// .cl sibling and the twin check can compare parameter lists.
#pragma once

// NVRTC, which compiles sources given at run time, has no standard library headers.
#ifdef __CUDACC_RTC__
typedef decltype(sizeof(0)) size_t;
#else
#include <cstddef>
#endif

// The same spellings as glibc's <sys/types.h> (which nvcc pulls in), so redeclaring is allowed.
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
static_assert(sizeof(ulong) == 8, "OpenCL's ulong is 64 bits");

// Work-item indices with OpenCL meaning. The CUDA backend launches grid = global / local and
// block = local, so these equal OpenCL's values for the same launch.
__device__ inline size_t get_local_id(int dim) {
    return dim == 0 ? threadIdx.x : dim == 1 ? threadIdx.y : threadIdx.z;
}
__device__ inline size_t get_group_id(int dim) {
    return dim == 0 ? blockIdx.x : dim == 1 ? blockIdx.y : blockIdx.z;
}
__device__ inline size_t get_local_size(int dim) {
    return dim == 0 ? blockDim.x : dim == 1 ? blockDim.y : blockDim.z;
}
__device__ inline size_t get_num_groups(int dim) {
    return dim == 0 ? gridDim.x : dim == 1 ? gridDim.y : gridDim.z;
}
__device__ inline size_t get_global_id(int dim) {
    return get_group_id(dim) * get_local_size(dim) + get_local_id(dim);
}
__device__ inline size_t get_global_size(int dim) {
    return get_num_groups(dim) * get_local_size(dim);
}

// A `__local T*` kernel parameter on CUDA. The backend lays all local-memory arguments of a launch
// out in the block's dynamic shared memory and passes each one's byte offset; get() turns that
// into a pointer. Declare the parameter as `dualrt_local<float> scratch` where the .cl twin says
// `__local float* scratch`.
template <typename T>
struct dualrt_local {
    unsigned int offset;
    __device__ T* get() const {
        extern __shared__ __align__(16) unsigned char dualrt_dynamic_shared[];
        return reinterpret_cast<T*>(dualrt_dynamic_shared + offset);
    }
    __device__ T& operator[](size_t i) const { return get()[i]; }
};

#define barrier(flags) __syncthreads()
#define CLK_LOCAL_MEM_FENCE 0
#define CLK_GLOBAL_MEM_FENCE 0
