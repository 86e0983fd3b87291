// Probe: does NVIDIA's OpenCL see memory pinned by CUDA as pinned, and the reverse, in
// one process, and can either register the other's pinned memory? H2D GB/s of 64 MiB.
//   g++ -O2 -std=c++17 cross_pinned.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -lOpenCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;
static const size_t bytes = size_t(64) << 20;

static double cuda_h2d(CUstream s, CUdeviceptr d, const void* h) {
    std::vector<double> t;
    for (int r = 0; r < 6; ++r) {
        auto b = Clock::now();
        if (cuMemcpyHtoDAsync(d, h, bytes, s) != CUDA_SUCCESS || cuStreamSynchronize(s) != CUDA_SUCCESS) return -1;
        if (r) t.push_back(bytes / std::chrono::duration<double>(Clock::now() - b).count() / 1e9);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
static double ocl_h2d(cl_command_queue q, cl_mem d, const void* h) {
    std::vector<double> t;
    for (int r = 0; r < 6; ++r) {
        auto b = Clock::now();
        if (clEnqueueWriteBuffer(q, d, CL_TRUE, 0, bytes, h, 0, nullptr, nullptr) != CL_SUCCESS) return -1;
        if (r) t.push_back(bytes / std::chrono::duration<double>(Clock::now() - b).count() / 1e9);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
static const char* cu_name(CUresult r) { const char* n = "?"; cuGetErrorName(r, &n); return n; }

int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    cuInit(0);
    CUdevice dev; cuDeviceGet(&dev, 0);
    CUcontext ctx; cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
    CUstream s; cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    CUdeviceptr d; cuMemAlloc(&d, bytes);
    cl_platform_id plats[4]; cl_uint np; clGetPlatformIDs(4, plats, &np);
    cl_platform_id nv = nullptr;
    for (cl_uint i = 0; i < np; ++i) { char n[128]; clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, 128, n, nullptr); if (std::string(n).find("NVIDIA") != std::string::npos) nv = plats[i]; }
    cl_device_id cd; clGetDeviceIDs(nv, CL_DEVICE_TYPE_GPU, 1, &cd, nullptr);
    cl_int e; cl_context cc = clCreateContext(nullptr, 1, &cd, nullptr, nullptr, &e);
    cl_command_queue q = clCreateCommandQueueWithProperties(cc, cd, nullptr, &e);
    cl_mem dm = clCreateBuffer(cc, CL_MEM_READ_WRITE, bytes, nullptr, &e);

    void* cuda_pinned; cuMemHostAlloc(&cuda_pinned, bytes, CU_MEMHOSTALLOC_PORTABLE); std::memset(cuda_pinned, 1, bytes);
    cl_mem ahp = clCreateBuffer(cc, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, nullptr, &e);
    void* ocl_pinned = clEnqueueMapBuffer(q, ahp, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &e); std::memset(ocl_pinned, 2, bytes);
    void* plain = std::aligned_alloc(4096, bytes); std::memset(plain, 3, bytes);

    std::printf("CUDA from: cuda-pinned %.1f | ocl-pinned %.1f | plain %.1f GB/s\n", cuda_h2d(s, d, cuda_pinned), cuda_h2d(s, d, ocl_pinned), cuda_h2d(s, d, plain));
    std::printf("OpenCL from: cuda-pinned %.1f | ocl-pinned %.1f | plain %.1f GB/s\n", ocl_h2d(q, dm, cuda_pinned), ocl_h2d(q, dm, ocl_pinned), ocl_h2d(q, dm, plain));
    CUresult r = cuMemHostRegister(ocl_pinned, bytes, CU_MEMHOSTREGISTER_PORTABLE);
    std::printf("cuMemHostRegister(ocl-pinned): %s; CUDA from it now %.1f GB/s\n", cu_name(r), cuda_h2d(s, d, ocl_pinned));
    cl_mem use = clCreateBuffer(cc, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, cuda_pinned, &e);
    std::printf("USE_HOST_PTR over cuda-pinned: %d; ", e);
    void* m = e == CL_SUCCESS ? clEnqueueMapBuffer(q, use, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &e) : nullptr;
    std::printf("map %d same %d; OpenCL from cuda-pinned now %.1f GB/s\n", e, m == cuda_pinned, ocl_h2d(q, dm, cuda_pinned));
    // plain memory pinned by both
    r = cuMemHostRegister(plain, bytes, CU_MEMHOSTREGISTER_PORTABLE);
    cl_mem use2 = clCreateBuffer(cc, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, plain, &e);
    std::printf("plain registered with CUDA (%s) then USE_HOST_PTR (%d): CUDA %.1f | OpenCL %.1f GB/s\n", cu_name(r), e, cuda_h2d(s, d, plain), ocl_h2d(q, dm, plain));
    void* plain2 = std::aligned_alloc(4096, bytes); std::memset(plain2, 4, bytes);
    cl_mem use3 = clCreateBuffer(cc, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, plain2, &e);
    void* m3 = clEnqueueMapBuffer(q, use3, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &e);
    r = cuMemHostRegister(plain2, bytes, CU_MEMHOSTREGISTER_PORTABLE);
    std::printf("plain2 USE_HOST_PTR first (map same %d), then cuMemHostRegister (%s): CUDA %.1f | OpenCL %.1f GB/s\n", m3 == plain2, cu_name(r), cuda_h2d(s, d, plain2), ocl_h2d(q, dm, plain2));
    (void)use; (void)use2;
    return 0;
}
