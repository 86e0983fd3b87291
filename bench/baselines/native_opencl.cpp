// The plain OpenCL baseline: copies and launches written directly with the C API, and the
// module's entry point. The pipeline is in native_opencl_pipeline.cpp, the streamed stencil in
// native_opencl_stencil.cpp.
#include "native_common.hpp"
#include "native_module.hpp"
#include "native_opencl.hpp"
#include "native_stream.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

namespace dualrt::bench::opencl {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
}

// Our own kernel object for the kernel `name` of the program that `theirs` (dualrt's) belongs
// to: the program is built already, and kernel arguments set here never touch dualrt's object.
KernelObject own_kernel(cl_kernel theirs, const char* name) {
    cl_program program = nullptr;
    NATIVE_CL(clGetKernelInfo(theirs, CL_KERNEL_PROGRAM, sizeof program, &program, nullptr));
    cl_int code = CL_SUCCESS;
    KernelObject kernel(clCreateKernel(program, name, &code));
    check(code, "clCreateKernel", std::string("kernel '") + name + "'");
    return kernel;
}

std::string device_text(cl_device_id device, cl_device_info what) {
    std::size_t size = 0;
    NATIVE_CL(clGetDeviceInfo(device, what, 0, nullptr, &size));
    std::string text(size, '\0');
    NATIVE_CL(clGetDeviceInfo(device, what, size, text.data(), nullptr));
    while (!text.empty() && text.back() == '\0') text.pop_back();
    return text;
}

}  // namespace

NativeOpenCL::NativeOpenCL(cl_device_id device, cl_context context, cl_kernel empty,
                           cl_kernel busy, cl_kernel triad, cl_kernel stencil, cl_kernel jacobi)
    : device_(device) {
    // Our own reference, so the context outlives dualrt's Device if need be.
    NATIVE_CL(clRetainContext(context));
    context_ = ContextRef(context);
    empty_ = own_kernel(empty, "empty");
    busy_ = own_kernel(busy, "busy");
    for (std::size_t q = 0; q < detail::stream_queues; ++q)
        triads_.push_back(own_kernel(triad, "triad"));
    stencil_ = own_kernel(stencil, "stencil_blur3x3");
    for (auto& kernel : jacobi_) kernel = own_kernel(jacobi, "jacobi_rows");
    plain_ = create_queue(context, device, 0);
    for (auto& queue : timed_) queue = create_queue(context, device, CL_QUEUE_PROFILING_ENABLE);
    cl_uint align_bits = 0;
    NATIVE_CL(clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits,
                              &align_bits, nullptr));
    align_elements_ = std::max<std::size_t>(align_bits / 8 / sizeof(float), 1);
}

std::string NativeOpenCL::describe() const {
    return "plain OpenCL C API, " + device_text(device_, CL_DEVICE_VERSION) + ", driver " +
           device_text(device_, CL_DRIVER_VERSION) +
           " (clEnqueueRead/WriteBuffer, profiled markers, clEnqueueNDRangeKernel)";
}

double NativeOpenCL::copy_ms(Direction direction, HostMemory host, std::size_t bytes,
                             int repetitions) {
    detail::check_copy_arguments("opencl", bytes, repetitions);
    const cl_context context = context_.get();
    const cl_command_queue first = timed_[0].get();
    const cl_command_queue second = timed_[1].get();
    MemObject a = create_buffer(context, CL_MEM_READ_WRITE, bytes);
    MemObject b = create_buffer(context, CL_MEM_READ_WRITE, bytes);
    HostBlock src(host, bytes, context, first), dst(host, bytes, context, first);

    // Self-check: random bytes host -> a -> b -> host must come back unchanged. It also makes
    // the driver place both buffers on the device before any timing.
    detail::fill_pattern(src.data(), bytes, seed_++);
    NATIVE_CL(clEnqueueWriteBuffer(first, a.get(), CL_FALSE, 0, bytes, src.data(), 0, nullptr,
                                   nullptr));
    NATIVE_CL(clEnqueueCopyBuffer(first, a.get(), b.get(), 0, 0, bytes, 0, nullptr, nullptr));
    NATIVE_CL(clEnqueueReadBuffer(first, b.get(), CL_FALSE, 0, bytes, dst.data(), 0, nullptr,
                                  nullptr));
    NATIVE_CL(clFinish(first));
    const std::string difference = detail::compare_bytes(src.data(), dst.data(), bytes);
    if (!difference.empty())
        detail::wrong_result("opencl", "host -> device -> device -> host round trip", difference);

    // Timed between profiled markers, the clock points dualrt's Queue::record() uses, so the
    // ratio compares the copies and not two ways of timing them. The start marker is flushed at
    // once, so that it is stamped before the copy's enqueue call does any host-side work.
    const auto once = [&]() -> double {
        EventObject start = marker(first);
        NATIVE_CL(clFlush(first));
        EventObject stop_second;
        switch (direction) {
        case Direction::h2d:
            NATIVE_CL(clEnqueueWriteBuffer(first, a.get(), CL_FALSE, 0, bytes, src.data(), 0,
                                           nullptr, nullptr));
            break;
        case Direction::d2h:
            NATIVE_CL(clEnqueueReadBuffer(first, a.get(), CL_FALSE, 0, bytes, dst.data(), 0,
                                          nullptr, nullptr));
            break;
        case Direction::d2d:
            NATIVE_CL(clEnqueueCopyBuffer(first, a.get(), b.get(), 0, 0, bytes, 0, nullptr,
                                          nullptr));
            break;
        case Direction::both: {
            // Two queues, the second held at the start marker, so both copies start together
            // and each direction's copy engine runs one of them.
            const cl_event start_event = start.get();
            NATIVE_CL(clEnqueueBarrierWithWaitList(second, 1, &start_event, nullptr));
            NATIVE_CL(clEnqueueWriteBuffer(first, a.get(), CL_FALSE, 0, bytes, src.data(), 0,
                                           nullptr, nullptr));
            NATIVE_CL(clEnqueueReadBuffer(second, b.get(), CL_FALSE, 0, bytes, dst.data(), 0,
                                          nullptr, nullptr));
            stop_second = marker(second);
            NATIVE_CL(clFlush(second));
            break;
        }
        }
        EventObject stop_first = marker(first);
        NATIVE_CL(clFlush(first));
        std::uint64_t ns = end_to_end_ns(start, stop_first);
        if (direction == Direction::both) ns = std::max(ns, end_to_end_ns(start, stop_second));
        return static_cast<double>(ns) / 1e6;
    };
    for (int i = 0; i < detail::warmup_runs; ++i) once();
    std::vector<double> times;
    for (int i = 0; i < repetitions; ++i) times.push_back(once());
    NATIVE_CL(clFinish(second));
    return detail::median(std::move(times));
}

LaunchCost NativeOpenCL::launch_cost(int launches, int repetitions) {
    detail::check_launch_arguments("opencl", launches, repetitions);
    const std::size_t global = empty_global_size;
    const std::size_t local = empty_local_size;
    const cl_kernel kernel = empty_.get();
    const cl_uint unused = 0;  // empty(uint unused): set once, as a plain program does
    NATIVE_CL(clSetKernelArg(kernel, 0, sizeof unused, &unused));
    const int trips = std::min(launches, max_round_trips_per_repetition);

    // What a plain program does: enqueue with no event, wait with clFinish.
    const auto measure = [&](cl_command_queue queue, double& enqueue_us, double& round_trip_us,
                             double& kept_us) {
        const auto launch = [&] {
            NATIVE_CL(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0,
                                             nullptr, nullptr));
        };
        std::vector<cl_event> kept(static_cast<std::size_t>(launches));
        const auto kept_burst = [&]() -> double {
            const auto begin = Clock::now();
            for (int i = 0; i < launches; ++i)
                NATIVE_CL(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0,
                                                 nullptr, &kept[static_cast<std::size_t>(i)]));
            const auto end = Clock::now();
            NATIVE_CL(clFinish(queue));
            for (cl_event event : kept) NATIVE_CL(clReleaseEvent(event));
            return microseconds(end - begin) / launches;
        };
        const auto burst = [&]() -> double {
            const auto begin = Clock::now();
            for (int i = 0; i < launches; ++i) launch();
            const auto end = Clock::now();
            NATIVE_CL(clFinish(queue));
            return microseconds(end - begin) / launches;
        };
        const auto round_trip = [&]() -> double {
            const auto begin = Clock::now();
            launch();
            NATIVE_CL(clFinish(queue));
            return microseconds(Clock::now() - begin);
        };
        burst();  // warm-up
        std::vector<double> enqueue;
        for (int r = 0; r < repetitions; ++r) enqueue.push_back(burst());
        enqueue_us = detail::median(std::move(enqueue));
        kept_burst();  // warm-up
        std::vector<double> with_events;
        for (int r = 0; r < repetitions; ++r) with_events.push_back(kept_burst());
        kept_us = detail::median(std::move(with_events));
        for (int i = 0; i < trips; ++i) round_trip();
        std::vector<double> round;
        for (int r = 0; r < repetitions; ++r)
            for (int i = 0; i < trips; ++i) round.push_back(round_trip());
        round_trip_us = detail::median(std::move(round));
    };

    LaunchCost cost;
    measure(plain_.get(), cost.enqueue_us, cost.round_trip_us, cost.kept_enqueue_us);
    measure(timed_[0].get(), cost.profiling_enqueue_us, cost.profiling_round_trip_us,
            cost.profiling_kept_enqueue_us);
    return cost;
}

}  // namespace dualrt::bench::opencl

extern "C" __attribute__((visibility("default"))) dualrt::bench::NativeBaseline*
dualrt_native_baseline_create(const dualrt_native_handles* handles) {
    if (handles == nullptr || handles->api_version != DUALRT_NATIVE_API_VERSION)
        dualrt::bench::detail::invalid_argument(
            "opencl", DUALRT_NATIVE_ENTRY_NAME,
            "the loader speaks native baseline API version " +
                std::to_string(handles ? handles->api_version : -1) + ", this module version " +
                std::to_string(DUALRT_NATIVE_API_VERSION) + " (rebuild the benchmarks)");
    return new dualrt::bench::opencl::NativeOpenCL(
        reinterpret_cast<cl_device_id>(handles->device),
        reinterpret_cast<cl_context>(handles->context),
        reinterpret_cast<cl_kernel>(handles->empty_kernel),
        reinterpret_cast<cl_kernel>(handles->busy_kernel),
        reinterpret_cast<cl_kernel>(handles->triad_kernel),
        reinterpret_cast<cl_kernel>(handles->stencil_kernel),
        reinterpret_cast<cl_kernel>(handles->jacobi_kernel));
}
