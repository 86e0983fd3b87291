// Probe: can one H200 allocation be used in place by CUDA and by NVIDIA's
// OpenCL in one process (CUDA VMM memory exported as a POSIX fd, imported by OpenCL through
// cl_khr_external_memory_opaque_fd), does OpenCL keep the fd it is given, is a kernel on the
// imported buffer as fast as on its own, and can an OpenCL semaphore exported as an fd order CUDA
// work after OpenCL work and back (cl_khr_external_semaphore_opaque_fd, cuImportExternalSemaphore)?
//   g++ -O2 -std=c++17 external_memory.cpp -I/usr/local/cuda/include
//       -L/usr/local/cuda/lib64/stubs -lcuda -lOpenCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <cuda.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define CU(call)                                                                    \
    do {                                                                            \
        CUresult r_ = (call);                                                       \
        if (r_ != CUDA_SUCCESS) {                                                   \
            const char* s_ = "?";                                                   \
            cuGetErrorName(r_, &s_);                                                \
            std::printf("FAIL %s: %s\n", #call, s_);                                \
            return 1;                                                               \
        }                                                                           \
    } while (0)
#define CL(call)                                                                    \
    do {                                                                            \
        cl_int r_ = (call);                                                         \
        if (r_ != CL_SUCCESS) {                                                     \
            std::printf("FAIL %s: %d\n", #call, r_);                                \
            return 1;                                                               \
        }                                                                           \
    } while (0)

static bool fd_open(int fd) { return fcntl(fd, F_GETFD) != -1; }
static int open_fds() {
    int n = 0;
    for (int fd = 0; fd < 4096; ++fd) n += fd_open(fd) ? 1 : 0;
    return n;
}

static const char* kernel_source = R"(
__kernel void scale(__global float* x, float s, uint n) {
    size_t i = get_global_id(0);
    if (i < n) x[i] = x[i] * s + 1.0f;
}
)";

// Arguments: MiB to share (default 256), then "peer" to enable peer access between CUDA devices
// 0 and 1 first (the two-GPU machine: does either change what the import does?).
int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IONBF, 0);  // every line out before a crash in a driver
    const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256;
    const bool peer = argc > 2 && std::string(argv[2]) == "peer";
    const size_t n = mib << 18;  // floats
    size_t bytes = n * sizeof(float);
    std::printf("sharing %zu MiB%s\n", mib, peer ? ", peer access enabled first" : "");
    CU(cuInit(0));
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    if (peer) {
        CUdevice other;
        CUcontext other_ctx;
        CU(cuDeviceGet(&other, 1));
        CU(cuDevicePrimaryCtxRetain(&other_ctx, other));
        CU(cuCtxSetCurrent(other_ctx));
        CU(cuCtxEnablePeerAccess(ctx, 0));
        CU(cuCtxSetCurrent(ctx));
        CU(cuCtxEnablePeerAccess(other_ctx, 0));
    }
    CU(cuCtxSetCurrent(ctx));
    int fd_supported = 0;
    CU(cuDeviceGetAttribute(&fd_supported, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev));
    std::printf("CUDA: POSIX fd export supported: %d\n", fd_supported);

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t granularity = 0;
    CU(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    bytes = (bytes + granularity - 1) / granularity * granularity;
    CUmemGenericAllocationHandle handle;
    CU(cuMemCreate(&handle, bytes, &prop, 0));
    CUdeviceptr ptr;
    CU(cuMemAddressReserve(&ptr, bytes, 0, 0, 0));
    CU(cuMemMap(ptr, bytes, 0, handle, 0));
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(ptr, bytes, &access, 1));
    int fd = -1;
    CU(cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    std::printf("CUDA: exported %zu bytes (granularity %zu) as fd %d\n", bytes, granularity, fd);

    cl_uint platforms = 0;
    CL(clGetPlatformIDs(0, nullptr, &platforms));
    std::vector<cl_platform_id> ids(platforms);
    CL(clGetPlatformIDs(platforms, ids.data(), nullptr));
    cl_platform_id platform = nullptr;
    for (auto p : ids) {
        char name[256] = {};
        clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
        if (std::strstr(name, "NVIDIA")) platform = p;
    }
    if (!platform) {
        std::printf("FAIL no NVIDIA OpenCL platform\n");
        return 1;
    }
    cl_device_id cldev;
    CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &cldev, nullptr));
    char ext[16384] = {};
    clGetDeviceInfo(cldev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, nullptr);
    for (const char* e : {"cl_khr_external_memory", "cl_khr_external_memory_opaque_fd",
                          "cl_khr_external_semaphore", "cl_khr_external_semaphore_opaque_fd",
                          "cl_khr_device_uuid"})
        std::printf("OpenCL: %s %s\n", e, std::strstr(ext, e) ? "yes" : "NO");
    cl_int err = 0;
    cl_context clctx = clCreateContext(nullptr, 1, &cldev, nullptr, nullptr, &err);
    CL(err);
    cl_command_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(clctx, cldev, qp, &err);
    CL(err);

    const int fds_before = open_fds();
    const int imported_fd = dup(fd);
    cl_mem_properties props[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
                                 (cl_mem_properties)imported_fd,
                                 CL_DEVICE_HANDLE_LIST_KHR, (cl_mem_properties)cldev,
                                 CL_DEVICE_HANDLE_LIST_END_KHR, 0};
    cl_mem shared = clCreateBufferWithProperties(clctx, props, CL_MEM_READ_WRITE, n * sizeof(float),
                                                 nullptr, &err);
    std::printf("OpenCL import: err %d; the fd given is %s after import (fds %d -> %d)\n", err,
                fd_open(imported_fd) ? "open" : "closed", fds_before, open_fds());
    if (err != CL_SUCCESS) return 1;

    // CUDA writes, OpenCL reads.
    std::vector<float> host(n), back(n);
    for (size_t i = 0; i < n; ++i) host[i] = float(i % 1000) * 0.5f;
    CU(cuMemcpyHtoD(ptr, host.data(), n * sizeof(float)));
    CL(clEnqueueReadBuffer(q, shared, CL_TRUE, 0, n * sizeof(float), back.data(), 0, nullptr, nullptr));
    std::printf("CUDA write -> OpenCL read: %s\n", back == host ? "equal" : "DIFFERENT");

    // OpenCL kernel on it, CUDA reads.
    cl_program prog = clCreateProgramWithSource(clctx, 1, &kernel_source, nullptr, &err);
    CL(err);
    CL(clBuildProgram(prog, 1, &cldev, "", nullptr, nullptr));
    cl_kernel k = clCreateKernel(prog, "scale", &err);
    CL(err);
    const float s = 2.0f;
    const cl_uint count = cl_uint(n);
    auto run_scale = [&](cl_mem buf, double& ms) -> int {
        CL(clSetKernelArg(k, 0, sizeof buf, &buf));
        CL(clSetKernelArg(k, 1, sizeof s, &s));
        CL(clSetKernelArg(k, 2, sizeof count, &count));
        size_t global = n, local = 256;
        std::vector<double> t;
        for (int r = 0; r < 11; ++r) {
            cl_event e;
            CL(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, &e));
            CL(clWaitForEvents(1, &e));
            cl_ulong a = 0, b = 0;
            clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, nullptr);
            clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, nullptr);
            clReleaseEvent(e);
            if (r) t.push_back((b - a) * 1e-6);
        }
        std::sort(t.begin(), t.end());
        ms = t[t.size() / 2];
        return 0;
    };
    CU(cuMemcpyHtoD(ptr, host.data(), n * sizeof(float)));
    double shared_ms = 0, own_ms = 0;
    if (run_scale(shared, shared_ms)) return 1;
    CU(cuMemcpyDtoH(back.data(), ptr, n * sizeof(float)));
    std::vector<float> expect = host;
    for (int r = 0; r < 11; ++r)
        for (auto& v : expect) v = v * s + 1.0f;
    std::printf("OpenCL kernel -> CUDA read: %s\n", back == expect ? "equal" : "DIFFERENT");
    cl_mem own = clCreateBuffer(clctx, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err);
    CL(err);
    if (run_scale(own, own_ms)) return 1;
    std::printf("OpenCL scale kernel, 256 MiB: imported buffer %.4f ms, own buffer %.4f ms "
                "(ratio %.3f)\n", shared_ms, own_ms, shared_ms / own_ms);

    // Semaphores.
    auto get = [&](const char* name) {
        return clGetExtensionFunctionAddressForPlatform(platform, name);
    };
    auto create_sem = (clCreateSemaphoreWithPropertiesKHR_fn)get("clCreateSemaphoreWithPropertiesKHR");
    auto sem_fd = (clGetSemaphoreHandleForTypeKHR_fn)get("clGetSemaphoreHandleForTypeKHR");
    auto signal = (clEnqueueSignalSemaphoresKHR_fn)get("clEnqueueSignalSemaphoresKHR");
    auto wait = (clEnqueueWaitSemaphoresKHR_fn)get("clEnqueueWaitSemaphoresKHR");
    std::printf("semaphore entry points: %s\n",
                create_sem && sem_fd && signal && wait ? "found" : "MISSING");
    if (create_sem && sem_fd && signal && wait) {
        // NVIDIA's driver refused the full property list once (CL_INVALID_PROPERTY): try it
        // without the device list, then without the export list, to see which part it refuses.
        const cl_semaphore_properties_khr variants[3][9] = {
            {CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
             CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR, CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
             CL_SEMAPHORE_EXPORT_HANDLE_TYPES_LIST_END_KHR, CL_DEVICE_HANDLE_LIST_KHR,
             (cl_semaphore_properties_khr)cldev, CL_DEVICE_HANDLE_LIST_END_KHR, 0},
            {CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
             CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR, CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
             CL_SEMAPHORE_EXPORT_HANDLE_TYPES_LIST_END_KHR, 0},
            {CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, 0}};
        cl_semaphore_khr sem = nullptr;
        for (int v = 0; v < 3 && !sem; ++v) {
            sem = create_sem(clctx, variants[v], &err);
            std::printf("clCreateSemaphoreWithPropertiesKHR, variant %d: %d\n", v, err);
            if (v == 2 && sem) err = -1;  // not exportable: nothing to import into CUDA
        }
        for (const cl_device_info query : {CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR,
                                           CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR}) {
            char types[256] = {};
            size_t size = 0;
            clGetDeviceInfo(cldev, query, sizeof types, types, &size);
            std::printf("device semaphore %s handle types:",
                        query == CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR ? "export" : "import");
            for (size_t i = 0; i + 4 <= size; i += 4) {
                unsigned t = 0;
                std::memcpy(&t, types + i, 4);
                std::printf(" 0x%x", t);
            }
            std::printf("\n");
        }
        int sfd = -1;
        if (err == CL_SUCCESS) {
            err = sem_fd(sem, cldev, CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR, sizeof sfd, &sfd, nullptr);
            std::printf("clGetSemaphoreHandleForTypeKHR: %d, fd %d\n", err, sfd);
        }
        if (err == CL_SUCCESS) {
            CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC d = {};
            d.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
            d.handle.fd = sfd;
            CUexternalSemaphore cusem;
            CUresult r = cuImportExternalSemaphore(&cusem, &d);
            const char* rn = "?";
            cuGetErrorName(r, &rn);
            std::printf("cuImportExternalSemaphore: %s\n", rn);
            if (r == CUDA_SUCCESS) {
                CUstream st;
                CU(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
                // OpenCL kernel then signal; CUDA waits, then copies: it must see the kernel's data.
                CU(cuMemcpyHtoD(ptr, host.data(), n * sizeof(float)));
                size_t global = n, local = 256;
                cl_mem b = shared;
                CL(clSetKernelArg(k, 0, sizeof b, &b));
                CL(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
                CL(signal(q, 1, &sem, nullptr, 0, nullptr, nullptr));
                CL(clFlush(q));
                CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wp = {};
                CU(cuWaitExternalSemaphoresAsync(&cusem, &wp, 1, st));
                CU(cuMemcpyDtoHAsync(back.data(), ptr, n * sizeof(float), st));
                CU(cuStreamSynchronize(st));
                std::vector<float> once = host;
                for (auto& v : once) v = v * s + 1.0f;
                std::printf("OpenCL kernel, signal -> CUDA wait, read: %s\n",
                            back == once ? "ordered" : "NOT ORDERED");
                // CUDA writes then signals; OpenCL waits, then reads.
                CU(cuMemsetD32Async(ptr, 0x40400000u, n, st));  // 3.0f
                CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS spp = {};
                CU(cuSignalExternalSemaphoresAsync(&cusem, &spp, 1, st));
                CL(wait(q, 1, &sem, nullptr, 0, nullptr, nullptr));
                CL(clEnqueueReadBuffer(q, shared, CL_TRUE, 0, n * sizeof(float), back.data(), 0,
                                       nullptr, nullptr));
                std::printf("CUDA memset, signal -> OpenCL wait, read: %s\n",
                            std::all_of(back.begin(), back.end(), [](float v) { return v == 3.0f; })
                                ? "ordered" : "NOT ORDERED");
            }
        }
    }
    clReleaseMemObject(shared);
    std::printf("after clReleaseMemObject: fds %d; the fd given is %s\n", open_fds(),
                fd_open(imported_fd) ? "open" : "closed");
    return 0;
}
