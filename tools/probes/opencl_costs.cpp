// Probe: what NVIDIA's OpenCL charges for the operations dualrt's copy and launch
// paths are built from. Plain OpenCL C API, no dualrt. Prints one line per measurement.
//   g++ -O2 -std=c++17 opencl_costs.cpp -lOpenCL -lpthread -o opencl_costs && ./opencl_costs nvidia
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#define CHECK(x)                                                                      \
    do {                                                                              \
        cl_int e_ = (x);                                                              \
        if (e_ != CL_SUCCESS) {                                                       \
            std::fprintf(stderr, "%s failed: %d (line %d)\n", #x, e_, __LINE__);      \
            std::exit(1);                                                             \
        }                                                                             \
    } while (0)

using Clock = std::chrono::steady_clock;
static double us_since(Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}
static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static cl_context ctx;
static cl_device_id dev;
static cl_kernel empty_kernel;

// Host microseconds per call of `op`, median of 15 bursts of `n`, after `finish` per burst.
static double per_call(int n, const std::function<void(int)>& op, const std::function<void()>& finish) {
    std::vector<double> t;
    for (int r = 0; r < 16; ++r) {
        auto s = Clock::now();
        for (int i = 0; i < n; ++i) op(i);
        double e = us_since(s) / n;
        finish();
        if (r > 0) t.push_back(e);
    }
    return median(t);
}

static double gbps_h2d(cl_command_queue q, cl_mem dst, const void* src, size_t bytes, int reps) {
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) {
        cl_event ev;
        auto s = Clock::now();
        CHECK(clEnqueueWriteBuffer(q, dst, CL_FALSE, 0, bytes, src, 0, nullptr, &ev));
        CHECK(clWaitForEvents(1, &ev));
        double us = us_since(s);
        cl_ulong a, b;
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, nullptr));
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, nullptr));
        clReleaseEvent(ev);
        (void)us;
        if (r > 0) t.push_back(bytes / double(b - a));
    }
    return median(t);
}

static double gbps_copy(cl_command_queue q, cl_mem dst, cl_mem src, size_t bytes, int reps) {
    std::vector<double> t;
    for (int r = 0; r <= reps; ++r) {
        cl_event ev;
        CHECK(clEnqueueCopyBuffer(q, src, dst, 0, 0, bytes, 0, nullptr, &ev));
        CHECK(clWaitForEvents(1, &ev));
        cl_ulong a, b;
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, nullptr));
        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, nullptr));
        clReleaseEvent(ev);
        if (r > 0) t.push_back(bytes / double(b - a));
    }
    return median(t);
}

// Host-clock GB/s of a memcpy of `bytes` split over `threads` threads (pageable -> pinned).
static double memcpy_gbps(void* dst, const void* src, size_t bytes, int threads) {
    std::vector<double> t;
    for (int r = 0; r < 6; ++r) {
        auto s = Clock::now();
        std::vector<std::thread> pool;
        size_t share = bytes / threads & ~size_t(63);
        for (int i = 0; i < threads; ++i) {
            size_t b = i * share, e = i + 1 == threads ? bytes : b + share;
            pool.emplace_back([=] { std::memcpy((char*)dst + b, (const char*)src + b, e - b); });
        }
        for (auto& p : pool) p.join();
        double us = us_since(s);
        if (r > 0) t.push_back(bytes / us / 1e3);
    }
    return median(t);
}

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const char* want = argc > 1 ? argv[1] : "";
    cl_uint np = 0;
    CHECK(clGetPlatformIDs(0, nullptr, &np));
    std::vector<cl_platform_id> ps(np);
    CHECK(clGetPlatformIDs(np, ps.data(), nullptr));
    cl_platform_id plat = nullptr;
    for (auto p : ps) {
        char name[256];
        CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr));
        std::string n = name;
        std::transform(n.begin(), n.end(), n.begin(), ::tolower);
        if (n.find(want) != std::string::npos) { plat = p; std::printf("platform: %s\n", name); break; }
    }
    if (!plat) { std::fprintf(stderr, "no platform matching %s\n", want); return 1; }
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, nullptr));
    cl_int err;
    ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err); CHECK(err);
    cl_queue_properties prof_props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_command_queue qp = clCreateCommandQueueWithProperties(ctx, dev, prof_props, &err); CHECK(err);
    cl_command_queue qn = clCreateCommandQueueWithProperties(ctx, dev, nullptr, &err); CHECK(err);
    const char* src = "__kernel void empty(uint u, __global float* p) { if (u == 12345u) p[0] = 1.0f; }";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, nullptr, &err); CHECK(err);
    CHECK(clBuildProgram(prog, 1, &dev, "", nullptr, nullptr));
    empty_kernel = clCreateKernel(prog, "empty", &err); CHECK(err);
    cl_uint zero = 0;
    CHECK(clSetKernelArg(empty_kernel, 0, sizeof zero, &zero));
    cl_mem big = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256 << 20, nullptr, &err); CHECK(err);
    CHECK(clSetKernelArg(empty_kernel, 1, sizeof big, &big));
    size_t g = 1, l = 1;
    const int N = 2000;
    for (auto [qname, q] : {std::pair<const char*, cl_command_queue>{"profiling", qp}, {"plain", qn}}) {
        auto fin = [q] { CHECK(clFinish(q)); };
        auto launch = [&](cl_event* e) { CHECK(clEnqueueNDRangeKernel(q, empty_kernel, 1, nullptr, &g, &l, 0, nullptr, e)); };
        std::printf("[%s queue] enqueue no event: %.3f us\n", qname, per_call(N, [&](int) { launch(nullptr); }, fin));
        // dualrt sets every argument at each launch; a plain program sets unchanged ones once.
        std::printf("[%s queue] enqueue no event, scalar set each launch: %.3f us\n", qname,
                    per_call(N, [&](int) { CHECK(clSetKernelArg(empty_kernel, 0, sizeof zero, &zero)); launch(nullptr); }, fin));
        std::printf("[%s queue] enqueue no event, scalar changed each launch: %.3f us\n", qname,
                    per_call(N, [&](int i) { cl_uint v = i & 1; CHECK(clSetKernelArg(empty_kernel, 0, sizeof v, &v)); launch(nullptr); }, fin));
        std::printf("[%s queue] enqueue no event, buffer set and cleared each launch: %.3f us\n", qname,
                    per_call(N, [&](int) { CHECK(clSetKernelArg(empty_kernel, 1, sizeof big, &big)); launch(nullptr);
                                           cl_mem none = nullptr; CHECK(clSetKernelArg(empty_kernel, 1, sizeof none, &none)); }, fin));
        CHECK(clSetKernelArg(empty_kernel, 0, sizeof zero, &zero));
        CHECK(clSetKernelArg(empty_kernel, 1, sizeof big, &big));
        std::vector<cl_event> kept(N);
        std::printf("[%s queue] enqueue own event kept: %.3f us\n", qname,
                    per_call(N, [&](int i) { launch(&kept[i]); }, [&] { fin(); for (auto e : kept) clReleaseEvent(e); }));
        std::printf("[%s queue] enqueue own event released at once: %.3f us\n", qname,
                    per_call(N, [&](int) { cl_event e; launch(&e); clReleaseEvent(e); }, fin));
        std::printf("[%s queue] enqueue + marker event kept: %.3f us\n", qname,
                    per_call(N, [&](int i) { launch(nullptr); CHECK(clEnqueueMarkerWithWaitList(q, 0, nullptr, &kept[i])); }, [&] { fin(); for (auto e : kept) clReleaseEvent(e); }));
        std::printf("[%s queue] round trip clFinish: %.3f us\n", qname,
                    per_call(1000, [&](int) { launch(nullptr); fin(); }, fin));
        std::printf("[%s queue] round trip own event wait: %.3f us\n", qname,
                    per_call(1000, [&](int) { cl_event e; launch(&e); CHECK(clWaitForEvents(1, &e)); clReleaseEvent(e); }, fin));
        std::printf("[%s queue] round trip marker wait: %.3f us\n", qname,
                    per_call(1000, [&](int) { cl_event e; launch(nullptr); CHECK(clEnqueueMarkerWithWaitList(q, 0, nullptr, &e)); CHECK(clWaitForEvents(1, &e)); clReleaseEvent(e); }, fin));
        std::printf("[%s queue] round trip flush+own event wait: %.3f us\n", qname,
                    per_call(1000, [&](int) { cl_event e; launch(&e); CHECK(clFlush(q)); CHECK(clWaitForEvents(1, &e)); clReleaseEvent(e); }, fin));
        std::printf("[%s queue] marker + flush (record): %.3f us\n", qname,
                    per_call(N, [&](int i) { CHECK(clEnqueueMarkerWithWaitList(q, 0, nullptr, &kept[i])); CHECK(clFlush(q)); }, [&] { fin(); for (auto e : kept) clReleaseEvent(e); }));
        cl_event done;
        CHECK(clEnqueueMarkerWithWaitList(q, 0, nullptr, &done));
        fin();
        std::printf("[%s queue] barrier with 1-event wait list: %.3f us\n", qname,
                    per_call(N, [&](int) { CHECK(clEnqueueBarrierWithWaitList(q, 1, &done, nullptr)); }, fin));
        std::printf("[%s queue] getInfo status: %.3f us\n", qname,
                    per_call(N, [&](int) { cl_int s; CHECK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, nullptr)); }, [] {}));
        CHECK(clReleaseEvent(done));
    }
    // Sub-buffers: create + set + launch + release, versus a cached one.
    {
        auto fin = [&] { CHECK(clFinish(qp)); };
        cl_buffer_region region{4096, 1 << 20};
        std::printf("subbuffer create+launch+release: %.3f us\n", per_call(N, [&](int) {
            cl_int e2; cl_mem sub = clCreateSubBuffer(big, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &e2); CHECK(e2);
            CHECK(clSetKernelArg(empty_kernel, 1, sizeof sub, &sub));
            CHECK(clEnqueueNDRangeKernel(qp, empty_kernel, 1, nullptr, &g, &l, 0, nullptr, nullptr));
            cl_mem none = nullptr; CHECK(clSetKernelArg(empty_kernel, 1, sizeof none, &none));
            CHECK(clReleaseMemObject(sub)); }, fin));
        cl_mem sub = clCreateSubBuffer(big, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err); CHECK(err);
        std::printf("cached subbuffer set+launch+clear: %.3f us\n", per_call(N, [&](int) {
            CHECK(clSetKernelArg(empty_kernel, 1, sizeof sub, &sub));
            CHECK(clEnqueueNDRangeKernel(qp, empty_kernel, 1, nullptr, &g, &l, 0, nullptr, nullptr));
            cl_mem none = nullptr; CHECK(clSetKernelArg(empty_kernel, 1, sizeof none, &none)); }, fin));
        std::printf("whole buffer set+launch+clear: %.3f us\n", per_call(N, [&](int) {
            CHECK(clSetKernelArg(empty_kernel, 1, sizeof big, &big));
            CHECK(clEnqueueNDRangeKernel(qp, empty_kernel, 1, nullptr, &g, &l, 0, nullptr, nullptr));
            cl_mem none = nullptr; CHECK(clSetKernelArg(empty_kernel, 1, sizeof none, &none)); }, fin));
        CHECK(clReleaseMemObject(sub));
        CHECK(clSetKernelArg(empty_kernel, 1, sizeof big, &big));
    }
    // Copies: where does the driver DMA from?
    const size_t total = 256 << 20;
    cl_mem pinned = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, total, nullptr, &err); CHECK(err);
    void* pinned_ptr = clEnqueueMapBuffer(qp, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, total, 0, nullptr, nullptr, &err); CHECK(err);
    std::memset(pinned_ptr, 1, total);
    void* plain = std::aligned_alloc(4096, total);
    std::memset(plain, 2, total);
    void* reg = std::aligned_alloc(4096, total);
    std::memset(reg, 3, total);
    auto s = Clock::now();
    cl_mem use = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, total, reg, &err); CHECK(err);
    std::printf("USE_HOST_PTR create 256 MiB: %.1f us\n", us_since(s));
    s = Clock::now();
    void* use_map = clEnqueueMapBuffer(qp, use, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, total, 0, nullptr, nullptr, &err); CHECK(err);
    std::printf("USE_HOST_PTR map 256 MiB: %.1f us (same pointer: %d)\n", us_since(s), use_map == reg);
    for (size_t bytes : {size_t(64) << 10, size_t(1) << 20, size_t(16) << 20, size_t(256) << 20}) {
        size_t off = bytes == total ? 0 : 3 * bytes;
        std::printf("H2D %8zu KiB: pinned base %.2f | pinned+offset %.2f | USE_HOST_PTR mapped ptr %.2f | copyBuffer from USE_HOST_PTR %.2f | pageable %.2f GB/s\n",
                    bytes >> 10, gbps_h2d(qp, big, pinned_ptr, bytes, 10), gbps_h2d(qp, big, (char*)pinned_ptr + off, bytes, 10),
                    gbps_h2d(qp, big, (char*)reg + off, bytes, 10),
                    [&] { std::vector<double> t; for (int r = 0; r < 11; ++r) {
                        cl_event ev; CHECK(clEnqueueCopyBuffer(qp, use, big, off, 0, bytes, 0, nullptr, &ev)); CHECK(clWaitForEvents(1, &ev));
                        cl_ulong a, b; CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, nullptr));
                        CHECK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, nullptr)); clReleaseEvent(ev);
                        if (r) t.push_back(bytes / double(b - a)); } return median(t); }(),
                    gbps_h2d(qp, big, (char*)plain + off, bytes, 10));
    }
    (void)gbps_copy;
    CHECK(clEnqueueUnmapMemObject(qp, use, use_map, 0, nullptr, nullptr));
    CHECK(clFinish(qp));
    std::printf("after unmap of USE_HOST_PTR: H2D 16 MiB from its pointer %.2f GB/s\n", gbps_h2d(qp, big, reg, 16 << 20, 10));
    // Host memcpy rates, pageable -> pinned, by thread count and size
    for (size_t bytes : {size_t(1) << 20, size_t(4) << 20, size_t(16) << 20, size_t(64) << 20}) {
        std::printf("memcpy %3zu MiB pageable->pinned GB/s:", bytes >> 20);
        for (int t : {1, 2, 4, 8, 16}) std::printf(" %dT %.1f", t, memcpy_gbps(pinned_ptr, plain, bytes, t));
        std::printf(" | pinned->pageable:");
        for (int t : {1, 2, 4, 8, 16}) std::printf(" %dT %.1f", t, memcpy_gbps(plain, pinned_ptr, bytes, t));
        std::printf("\n");
    }
    std::printf("hardware threads: %u\n", std::thread::hardware_concurrency());
    return 0;
}
