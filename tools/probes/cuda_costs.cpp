// Probe: what registering host memory costs with the CUDA driver, and how fast copies
// from it, and from a pointer inside cuMemHostAlloc memory, run. Plain driver API, no dualrt.
//   g++ -O2 -std=c++17 cuda_costs.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda -o cuda_costs
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                  \
    do {                                                                          \
        CUresult e_ = (x);                                                        \
        if (e_ != CUDA_SUCCESS) {                                                 \
            const char* n_ = nullptr;                                             \
            cuGetErrorName(e_, &n_);                                              \
            std::fprintf(stderr, "%s failed: %s (line %d)\n", #x, n_, __LINE__);  \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

using Clock = std::chrono::steady_clock;
static double us_since(Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

static double h2d_gbps(CUstream s, CUdeviceptr d, const void* h, size_t bytes) {
    CUevent a, b;
    CHECK(cuEventCreate(&a, 0));
    CHECK(cuEventCreate(&b, 0));
    std::vector<float> t;
    for (int r = 0; r < 11; ++r) {
        CHECK(cuEventRecord(a, s));
        CHECK(cuMemcpyHtoDAsync(d, h, bytes, s));
        CHECK(cuEventRecord(b, s));
        CHECK(cuEventSynchronize(b));
        float ms;
        CHECK(cuEventElapsedTime(&ms, a, b));
        if (r) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    cuEventDestroy(a);
    cuEventDestroy(b);
    return bytes / (t[t.size() / 2] * 1e6);
}

int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    const size_t total = size_t(1) << 30;
    CUdeviceptr d;
    CHECK(cuMemAlloc(&d, total));
    void* pinned;
    CHECK(cuMemHostAlloc(&pinned, total, CU_MEMHOSTALLOC_PORTABLE));
    std::memset(pinned, 1, total);
    void* plain = std::aligned_alloc(4096, total);
    std::memset(plain, 2, total);
    void* reg = std::malloc(total + 100);  // deliberately not page-aligned
    std::memset(reg, 3, total);
    auto t0 = Clock::now();
    CHECK(cuMemHostRegister(reg, total, CU_MEMHOSTREGISTER_PORTABLE));
    std::printf("cuMemHostRegister 1 GiB (unaligned malloc): %.0f us\n", us_since(t0));
    CUresult again = cuMemHostRegister((char*)reg + 4096, 1 << 20, CU_MEMHOSTREGISTER_PORTABLE);
    const char* name = nullptr;
    cuGetErrorName(again, &name);
    std::printf("registering a sub-range again: %s\n", name);
    for (size_t bytes : {size_t(64) << 10, size_t(1) << 20, size_t(16) << 20, size_t(256) << 20, total}) {
        size_t off = bytes >= (256u << 20) ? 0 : 3 * bytes + 4096;
        std::printf("H2D %8zu KiB: pinned %.2f | pinned+offset %.2f | registered+offset %.2f | pageable %.2f GB/s\n",
                    bytes >> 10, h2d_gbps(s, d, pinned, bytes), h2d_gbps(s, d, (char*)pinned + off, bytes),
                    h2d_gbps(s, d, (char*)reg + off, bytes), h2d_gbps(s, d, (char*)plain + off, bytes));
    }
    t0 = Clock::now();
    CHECK(cuMemHostUnregister(reg));
    std::printf("cuMemHostUnregister 1 GiB: %.0f us\n", us_since(t0));
    t0 = Clock::now();
    CHECK(cuMemHostRegister(plain, 16 << 20, 0));
    std::printf("cuMemHostRegister 16 MiB: %.0f us\n", us_since(t0));
    CHECK(cuMemHostUnregister(plain));
    return 0;
}
