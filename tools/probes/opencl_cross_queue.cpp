// Probe: does NVIDIA's OpenCL run a small download on one queue while a long kernel runs on
// another? The MPI stencil's halo exchange (a short border kernel and a download on one queue,
// the interior sweep on a second queue that waits for the border kernel) hides on CUDA, and on
// NVIDIA's OpenCL not at all when its events are markers with no wait list. Each case prints when
// the download was done and when the kernel was, in ms from the first enqueue; a download that
// overlaps ends long before the kernel. The later cases show why: a marker with no wait list ends
// only after every earlier command of the context; with a wait list it does not, but a timed one
// is then stamped on another clock. The last case asks whether such a marker also holds back its
// own queue's later commands.
//   g++ -O2 -std=c++17 opencl_cross_queue.cpp -lOpenCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

#define CHECK(call)                                                                  \
    do {                                                                             \
        cl_int err_ = (call);                                                        \
        if (err_ != CL_SUCCESS) {                                                    \
            std::fprintf(stderr, "%s failed: %d (line %d)\n", #call, err_, __LINE__); \
            std::exit(1);                                                            \
        }                                                                            \
    } while (0)

static const char* source = R"(
__kernel void spin(__global float* a, int n) {
    size_t i = get_global_id(0);
    float x = a[i];
    for (int k = 0; k < n; ++k) x = x * 0.999f + 0.001f;
    a[i] = x;
}
__kernel void touch(__global float* a) { a[get_global_id(0)] += 1.0f; }
)";

struct Setup {
    cl_context context;
    cl_device_id device;
    cl_kernel spin, touch;
    cl_mem big, halo, pinned;
    float* host;
    cl_event done;  // a user event set complete at the start
    size_t big_items = size_t(132) * 2048 * 4, halo_items = 32768;
};

static double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// An in-order queue of the probe's device, with CL_QUEUE_PROFILING_ENABLE when `profiling`.
static cl_command_queue make_queue(const Setup& s, bool profiling) {
    const cl_queue_properties props[] = {
        CL_QUEUE_PROPERTIES, profiling ? cl_queue_properties(CL_QUEUE_PROFILING_ENABLE) : 0, 0};
    cl_int err = 0;
    cl_command_queue queue = clCreateCommandQueueWithProperties(s.context, s.device, props, &err);
    CHECK(err);
    return queue;
}

// How the host learns that the download is done: its own event, or a marker enqueued after it
// (after the kernel was enqueued on the other queue), without or with a wait list. dualrt's
// OpenCL events are such markers, made when someone asks.
enum class Completion { read_event, marker, marker_on_read, marker_before_kernel, marker_on_done };

// One case: `border` a short kernel on `edge` first (when asked), the long kernel on `interior`
// (waiting for the border kernel when asked), then the download on `edge`.
static void run_case(Setup& s, const char* name, bool profiling, bool border, bool interior_waits,
                     bool flush_interior, bool blocking_read, int spins,
                     Completion completion = Completion::read_event) {
    cl_command_queue edge = make_queue(s, profiling);
    cl_command_queue interior = make_queue(s, profiling);
    CHECK(clSetKernelArg(s.spin, 0, sizeof(cl_mem), &s.big));
    CHECK(clSetKernelArg(s.spin, 1, sizeof(int), &spins));
    CHECK(clSetKernelArg(s.touch, 0, sizeof(cl_mem), &s.halo));
    double read_ms[5], kernel_ms[5];
    for (int rep = 0; rep < 5; ++rep) {
        CHECK(clFinish(edge));
        CHECK(clFinish(interior));
        const auto t0 = Clock::now();
        cl_event border_done = nullptr, kernel_done = nullptr, read_done = nullptr;
        if (border)
            CHECK(clEnqueueNDRangeKernel(edge, s.touch, 1, nullptr, &s.halo_items, nullptr, 0,
                                         nullptr, &border_done));
        cl_event marker = nullptr;
        const bool early = completion == Completion::marker_before_kernel;
        if (early) {  // the download and its marker enqueued before the kernel
            CHECK(clEnqueueReadBuffer(edge, s.halo, CL_FALSE, 0, s.halo_items * sizeof(float),
                                      s.host, 0, nullptr, &read_done));
            CHECK(clEnqueueMarkerWithWaitList(edge, 0, nullptr, &marker));
            CHECK(clFlush(edge));
        }
        CHECK(clEnqueueNDRangeKernel(interior, s.spin, 1, nullptr, &s.big_items, nullptr,
                                     border && interior_waits ? 1 : 0,
                                     border && interior_waits ? &border_done : nullptr,
                                     &kernel_done));
        if (flush_interior) CHECK(clFlush(interior));
        if (!early)
            CHECK(clEnqueueReadBuffer(edge, s.halo, blocking_read ? CL_TRUE : CL_FALSE, 0,
                                      s.halo_items * sizeof(float), s.host, 0, nullptr,
                                      &read_done));
        if (completion == Completion::marker)
            CHECK(clEnqueueMarkerWithWaitList(edge, 0, nullptr, &marker));
        if (completion == Completion::marker_on_read)
            CHECK(clEnqueueMarkerWithWaitList(edge, 1, &read_done, &marker));
        if (completion == Completion::marker_on_done)  // a wait list of one finished event
            CHECK(clEnqueueMarkerWithWaitList(edge, 1, &s.done, &marker));
        if (marker) CHECK(clFlush(edge));
        if (!blocking_read) CHECK(clWaitForEvents(1, marker ? &marker : &read_done));
        if (marker) clReleaseEvent(marker);
        read_ms[rep] = ms_since(t0);
        CHECK(clWaitForEvents(1, &kernel_done));
        kernel_ms[rep] = ms_since(t0);
        for (cl_event e : {border_done, kernel_done, read_done})
            if (e) clReleaseEvent(e);
    }
    std::printf("%-58s download done %7.3f ms, kernel done %7.3f ms (median of 5: %s)\n", name,
                read_ms[2], kernel_ms[2],
                read_ms[2] < 0.5 * kernel_ms[2] ? "overlaps" : "waits for the kernel");
    clReleaseCommandQueue(edge);
    clReleaseCommandQueue(interior);
}

// A marker whose wait list holds only a finished event must still come after the commands of
// its own (in-order) queue: a long kernel, then such a marker on the same queue.
static void own_queue_order(Setup& s, int spins) {
    cl_command_queue q = make_queue(s, false);
    CHECK(clSetKernelArg(s.spin, 0, sizeof(cl_mem), &s.big));
    CHECK(clSetKernelArg(s.spin, 1, sizeof(int), &spins));
    int early = 0;
    double marker_ms = 0, kernel_ms = 0;
    for (int rep = 0; rep < 5; ++rep) {
        CHECK(clFinish(q));
        const auto t0 = Clock::now();
        cl_event kernel_done = nullptr, marker = nullptr;
        CHECK(clEnqueueNDRangeKernel(q, s.spin, 1, nullptr, &s.big_items, nullptr, 0, nullptr,
                                     &kernel_done));
        CHECK(clEnqueueMarkerWithWaitList(q, 1, &s.done, &marker));
        CHECK(clFlush(q));
        CHECK(clWaitForEvents(1, &marker));
        marker_ms = ms_since(t0);
        cl_int status = 0;
        CHECK(clGetEventInfo(kernel_done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                             &status, nullptr));
        if (status != CL_COMPLETE) ++early;
        CHECK(clWaitForEvents(1, &kernel_done));
        kernel_ms = ms_since(t0);
        clReleaseEvent(kernel_done);
        clReleaseEvent(marker);
    }
    std::printf("same queue: kernel, marker on a done event: marker done %7.3f ms, kernel done "
                "%7.3f ms; marker before its kernel in %d of 5 (must be 0)\n",
                marker_ms, kernel_ms, early);
    clReleaseCommandQueue(q);
}

// A timed marker on a profiling queue: are its timestamps on the device's clock (its end at or
// just after the end of the kernel before it), and is it done before a long kernel enqueued
// earlier on another queue? `waits` is its wait list (empty: none).
static void timed_marker(Setup& s, const char* name, std::vector<cl_event> waits, int spins) {
    cl_command_queue q = make_queue(s, true);
    cl_command_queue other = make_queue(s, true);
    const cl_uint n = static_cast<cl_uint>(waits.size());
    const cl_event* list = n ? waits.data() : nullptr;
    // 1. Its timestamp against the kernel before it on its queue.
    CHECK(clSetKernelArg(s.touch, 0, sizeof(cl_mem), &s.halo));
    cl_event kernel = nullptr, marker = nullptr;
    CHECK(clEnqueueNDRangeKernel(q, s.touch, 1, nullptr, &s.halo_items, nullptr, 0, nullptr,
                                 &kernel));
    CHECK(clEnqueueMarkerWithWaitList(q, n, list, &marker));
    CHECK(clFinish(q));
    cl_ulong kernel_end = 0, marker_end = 0;
    CHECK(clGetEventProfilingInfo(kernel, CL_PROFILING_COMMAND_END, sizeof kernel_end,
                                  &kernel_end, nullptr));
    CHECK(clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_END, sizeof marker_end,
                                  &marker_end, nullptr));
    clReleaseEvent(kernel);
    clReleaseEvent(marker);
    // 2. Done before another queue's long kernel, enqueued first?
    CHECK(clSetKernelArg(s.spin, 0, sizeof(cl_mem), &s.big));
    CHECK(clSetKernelArg(s.spin, 1, sizeof(int), &spins));
    cl_event long_kernel = nullptr;
    const auto t0 = Clock::now();
    CHECK(clEnqueueNDRangeKernel(other, s.spin, 1, nullptr, &s.big_items, nullptr, 0, nullptr,
                                 &long_kernel));
    CHECK(clFlush(other));
    CHECK(clEnqueueReadBuffer(q, s.halo, CL_FALSE, 0, s.halo_items * sizeof(float), s.host, 0,
                              nullptr, nullptr));
    CHECK(clEnqueueMarkerWithWaitList(q, n, list, &marker));
    CHECK(clFlush(q));
    CHECK(clWaitForEvents(1, &marker));
    const double marker_ms = ms_since(t0);
    CHECK(clWaitForEvents(1, &long_kernel));
    const double kernel_ms = ms_since(t0);
    clReleaseEvent(marker);
    clReleaseEvent(long_kernel);
    std::printf("timed marker, %-36s end - kernel end %+.4f ms; after a download: done %7.3f ms, "
                "the other queue's kernel %7.3f ms\n",
                name, (static_cast<double>(marker_end) - static_cast<double>(kernel_end)) / 1e6,
                marker_ms, kernel_ms);
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(other);
}

// Does a marker without a wait list also hold back the commands after it on its own queue until
// the other queue's earlier kernel ends? A long kernel on one queue; on another a download, a
// marker (`waits` its wait list) and a second download, whose own event says when it ran.
static void marker_holds_queue(Setup& s, const char* name, std::vector<cl_event> waits,
                               int spins) {
    cl_command_queue q = make_queue(s, true);
    cl_command_queue other = make_queue(s, true);
    CHECK(clSetKernelArg(s.spin, 0, sizeof(cl_mem), &s.big));
    CHECK(clSetKernelArg(s.spin, 1, sizeof(int), &spins));
    const cl_uint n = static_cast<cl_uint>(waits.size());
    double after_ms[5], kernel_ms[5];
    for (int rep = 0; rep < 5; ++rep) {
        cl_event long_kernel = nullptr, marker = nullptr, second = nullptr;
        const auto t0 = Clock::now();
        CHECK(clEnqueueNDRangeKernel(other, s.spin, 1, nullptr, &s.big_items, nullptr, 0, nullptr,
                                     &long_kernel));
        CHECK(clFlush(other));
        const size_t bytes = s.halo_items * sizeof(float);
        CHECK(clEnqueueReadBuffer(q, s.halo, CL_FALSE, 0, bytes, s.host, 0, nullptr, nullptr));
        CHECK(clEnqueueMarkerWithWaitList(q, n, n ? waits.data() : nullptr, &marker));
        CHECK(clEnqueueReadBuffer(q, s.halo, CL_FALSE, 0, bytes, s.host, 0, nullptr, &second));
        CHECK(clFlush(q));
        CHECK(clWaitForEvents(1, &second));
        after_ms[rep] = ms_since(t0);
        CHECK(clWaitForEvents(1, &long_kernel));
        kernel_ms[rep] = ms_since(t0);
        for (cl_event e : {long_kernel, marker, second}) clReleaseEvent(e);
    }
    std::printf("queue after a marker %-24s second download done %7.3f ms, the other queue's "
                "kernel %7.3f ms (%s)\n",
                name, after_ms[2], kernel_ms[2],
                after_ms[2] < 0.5 * kernel_ms[2] ? "not held" : "HELD until the kernel");
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(other);
}

int main() {
    cl_uint platforms = 0;
    CHECK(clGetPlatformIDs(0, nullptr, &platforms));
    std::vector<cl_platform_id> ids(platforms);
    CHECK(clGetPlatformIDs(platforms, ids.data(), nullptr));
    Setup s{};
    bool found = false;
    for (cl_platform_id p : ids) {
        char name[256] = {};
        clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
        const bool want = std::getenv("PROBE_ANY") || std::string(name).find("NVIDIA") != std::string::npos;
        if (want && clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &s.device, nullptr) == CL_SUCCESS) {
            std::printf("platform %s\n", name);
            found = true;
            break;
        }
    }
    if (!found) {
        std::printf("no NVIDIA OpenCL device (PROBE_ANY=1 takes any)\n");
        return 1;
    }
    cl_int err = 0;
    s.context = clCreateContext(nullptr, 1, &s.device, nullptr, nullptr, &err);
    CHECK(err);
    cl_program program = clCreateProgramWithSource(s.context, 1, &source, nullptr, &err);
    CHECK(err);
    CHECK(clBuildProgram(program, 1, &s.device, "", nullptr, nullptr));
    s.spin = clCreateKernel(program, "spin", &err);
    CHECK(err);
    s.touch = clCreateKernel(program, "touch", &err);
    CHECK(err);
    if (std::getenv("PROBE_ANY")) s.big_items = 4096;
    s.big = clCreateBuffer(s.context, CL_MEM_READ_WRITE, s.big_items * sizeof(float), nullptr, &err);
    CHECK(err);
    s.halo = clCreateBuffer(s.context, CL_MEM_READ_WRITE, s.halo_items * sizeof(float), nullptr,
                            &err);
    CHECK(err);
    s.pinned = clCreateBuffer(s.context, CL_MEM_ALLOC_HOST_PTR, s.halo_items * sizeof(float),
                              nullptr, &err);
    CHECK(err);
    cl_command_queue q = make_queue(s, false);
    s.host = static_cast<float*>(clEnqueueMapBuffer(q, s.pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                                    0, s.halo_items * sizeof(float), 0, nullptr,
                                                    nullptr, &err));
    CHECK(err);
    const float zero = 0.0f;
    CHECK(clEnqueueFillBuffer(q, s.big, &zero, sizeof zero, 0, s.big_items * sizeof(float), 0,
                              nullptr, nullptr));
    CHECK(clEnqueueFillBuffer(q, s.halo, &zero, sizeof zero, 0, s.halo_items * sizeof(float), 0,
                              nullptr, nullptr));
    CHECK(clFinish(q));
    s.done = clCreateUserEvent(s.context, &err);
    CHECK(err);
    CHECK(clSetUserEventStatus(s.done, CL_COMPLETE));
    const int spins = std::getenv("PROBE_SPINS") ? std::atoi(std::getenv("PROBE_SPINS")) : 20000;
    for (bool profiling : {false, true}) {
        const std::string p = profiling ? "profiling queues: " : "plain queues: ";
        run_case(s, (p + "kernel, flushed; download").c_str(), profiling, false, false, true,
                 false, spins);
        run_case(s, (p + "kernel, not flushed; download").c_str(), profiling, false, false,
                 false, false, spins);
        run_case(s, (p + "kernel, flushed; blocking download").c_str(), profiling, false, false,
                 true, true, spins);
        run_case(s, (p + "border; kernel (no wait), flushed; download").c_str(), profiling, true,
                 false, true, false, spins);
        run_case(s, (p + "border; kernel waits border, flushed; download").c_str(), profiling,
                 true, true, true, false, spins);
    }
    run_case(s, "profiling: border; kernel waits; download, marker after it", true, true, true,
             true, false, spins, Completion::marker);
    run_case(s, "profiling: border; kernel waits; download, marker on its event", true, true,
             true, true, false, spins, Completion::marker_on_read);
    run_case(s, "profiling: border; download, marker; kernel waits", true, true, true, true,
             false, spins, Completion::marker_before_kernel);
    run_case(s, "profiling: border; kernel waits; download, marker on a done event", true,
             true, true, true, false, spins, Completion::marker_on_done);
    run_case(s, "plain: border; kernel waits; download, marker on a done event", false, true,
             true, true, false, spins, Completion::marker_on_done);
    own_queue_order(s, spins);
    {
        cl_command_queue plain = make_queue(s, false);
        cl_command_queue timed = make_queue(s, true);
        cl_event plain_done = nullptr, timed_done = nullptr, fill_done = nullptr;
        CHECK(clEnqueueMarkerWithWaitList(plain, 0, nullptr, &plain_done));
        CHECK(clEnqueueMarkerWithWaitList(timed, 0, nullptr, &timed_done));
        const float zero = 0.0f;
        CHECK(clEnqueueFillBuffer(timed, s.halo, &zero, sizeof zero, 0, sizeof zero, 0, nullptr,
                                  &fill_done));
        CHECK(clFinish(plain));
        CHECK(clFinish(timed));
        timed_marker(s, "no wait list:", {}, spins);
        timed_marker(s, "on a finished user event:", {s.done}, spins);
        timed_marker(s, "on a plain queue's finished marker:", {plain_done}, spins);
        timed_marker(s, "on a timed queue's finished marker:", {timed_done}, spins);
        timed_marker(s, "on a finished fill:", {fill_done}, spins);
        marker_holds_queue(s, "with no wait list:", {}, spins);
        marker_holds_queue(s, "on a finished event:", {s.done}, spins);
    }
    run_case(s, "plain: border; kernel waits; download, marker after it", false, true, true,
             true, false, spins, Completion::marker);
    run_case(s, "plain: border; kernel waits; download, marker on its event", false, true, true,
             true, false, spins, Completion::marker_on_read);
    return 0;
}
