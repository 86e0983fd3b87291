// The plain CUDA baseline: copies and launches written directly with the driver API, and the
// module's entry point. The pipeline is in native_cuda_pipeline.cpp, the streamed stencil in
// native_cuda_stencil.cpp.
#include "native_common.hpp"
#include "native_cuda.hpp"
#include "native_module.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

namespace dualrt::bench::cuda {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count();
}

}  // namespace

NativeCuda::NativeCuda(CUdevice device, CUcontext context, CUfunction empty, CUfunction busy,
                       CUfunction triad, CUfunction stencil, CUfunction jacobi)
    : device_(device), context_(nullptr), empty_(empty), busy_(busy), triad_(triad),
      stencil_(stencil), jacobi_(jacobi) {
    // Our own reference to the primary context, so it outlives dualrt's Device if need be; it
    // must be the context dualrt uses, or the CUfunctions handed to us would not belong to it.
    NATIVE_CU(cuDevicePrimaryCtxRetain(&context_, device_));
    if (context_ != context) {
        (void)cuDevicePrimaryCtxRelease(device_);
        detail::invalid_argument("cuda", "dualrt_native_baseline_create",
                                 "the context given is not the device's primary context");
    }
}

NativeCuda::~NativeCuda() {
    launch_stream_.reset();  // while the context is still ours
    (void)cuDevicePrimaryCtxRelease(device_);
}

std::string NativeCuda::describe() const {
    int driver = 0;
    NATIVE_CU(cuDriverGetVersion(&driver));
    return "plain CUDA driver API " + std::to_string(driver / 1000) + "." +
           std::to_string(driver % 1000 / 10) +
           " (cuMemcpy*Async on non-blocking streams, cuEventElapsedTime, cuLaunchKernel)";
}

double NativeCuda::copy_ms(Direction direction, HostMemory host, std::size_t bytes,
                           int repetitions) {
    detail::check_copy_arguments("cuda", bytes, repetitions);
    Current current(context_);  // first in, last out: everything below is freed inside it
    DeviceMemory a(bytes), b(bytes);
    HostBlock src(host, bytes), dst(host, bytes);
    Stream first, second;

    // Self-check: random bytes host -> a -> b -> host must come back unchanged.
    detail::fill_pattern(src.data(), bytes, seed_++);
    NATIVE_CU(cuMemcpyHtoDAsync(a.get(), src.data(), bytes, first.get()));
    NATIVE_CU(cuMemcpyDtoDAsync(b.get(), a.get(), bytes, first.get()));
    NATIVE_CU(cuMemcpyDtoHAsync(dst.data(), b.get(), bytes, first.get()));
    NATIVE_CU(cuStreamSynchronize(first.get()));
    const std::string difference = detail::compare_bytes(src.data(), dst.data(), bytes);
    if (!difference.empty())
        detail::wrong_result("cuda", "host -> device -> device -> host round trip", difference);

    TimingEvent start, stop_first, stop_second;
    const auto once = [&]() -> double {
        NATIVE_CU(cuEventRecord(start.get(), first.get()));
        switch (direction) {
        case Direction::h2d:
            NATIVE_CU(cuMemcpyHtoDAsync(a.get(), src.data(), bytes, first.get()));
            break;
        case Direction::d2h:
            NATIVE_CU(cuMemcpyDtoHAsync(dst.data(), a.get(), bytes, first.get()));
            break;
        case Direction::d2d:
            NATIVE_CU(cuMemcpyDtoDAsync(b.get(), a.get(), bytes, first.get()));
            break;
        case Direction::both:
            // Both copies start from the same event, on two streams, so the two copy engines
            // run them at once.
            NATIVE_CU(cuStreamWaitEvent(second.get(), start.get(), 0));
            NATIVE_CU(cuMemcpyHtoDAsync(a.get(), src.data(), bytes, first.get()));
            NATIVE_CU(cuMemcpyDtoHAsync(dst.data(), b.get(), bytes, second.get()));
            NATIVE_CU(cuEventRecord(stop_second.get(), second.get()));
            break;
        }
        NATIVE_CU(cuEventRecord(stop_first.get(), first.get()));
        double ms = elapsed_ms(start, stop_first);
        if (direction == Direction::both) ms = std::max<double>(ms, elapsed_ms(start, stop_second));
        return ms;
    };
    for (int i = 0; i < detail::warmup_runs; ++i) once();
    std::vector<double> times;
    for (int i = 0; i < repetitions; ++i) times.push_back(once());
    return detail::median(std::move(times));
}

LaunchCost NativeCuda::launch_cost(int launches, int repetitions) {
    detail::check_launch_arguments("cuda", launches, repetitions);
    Current current(context_);
    if (!launch_stream_) launch_stream_ = std::make_unique<Stream>();
    const Stream& stream = *launch_stream_;
    unsigned unused = 0;  // empty(uint unused)
    void* params[] = {&unused};
    const auto launch = [&] {
        // OpenCL geometry (global work-items) as CUDA's: global / local blocks of local threads.
        constexpr auto blocks = static_cast<unsigned>(empty_global_size / empty_local_size);
        NATIVE_CU(cuLaunchKernel(empty_, blocks, 1, 1, static_cast<unsigned>(empty_local_size), 1,
                                 1, 0, stream.get(), params, nullptr));
    };
    const auto burst = [&]() -> double {
        const auto begin = Clock::now();
        for (int i = 0; i < launches; ++i) launch();
        const auto end = Clock::now();
        NATIVE_CU(cuStreamSynchronize(stream.get()));
        return microseconds(end - begin) / launches;
    };
    const auto round_trip = [&]() -> double {
        const auto begin = Clock::now();
        launch();
        NATIVE_CU(cuStreamSynchronize(stream.get()));
        return microseconds(Clock::now() - begin);
    };

    LaunchCost cost;
    burst();  // warm-up: the module's first launch loads the kernel's code on the device
    std::vector<double> enqueue;
    for (int r = 0; r < repetitions; ++r) enqueue.push_back(burst());
    cost.enqueue_us = detail::median(std::move(enqueue));

    const int trips = std::min(launches, max_round_trips_per_repetition);
    for (int i = 0; i < trips; ++i) round_trip();
    std::vector<double> round;
    for (int r = 0; r < repetitions; ++r)
        for (int i = 0; i < trips; ++i) round.push_back(round_trip());
    cost.round_trip_us = detail::median(std::move(round));
    return cost;
}

}  // namespace dualrt::bench::cuda

extern "C" __attribute__((visibility("default"))) dualrt::bench::NativeBaseline*
dualrt_native_baseline_create(const dualrt_native_handles* handles) {
    if (handles == nullptr || handles->api_version != DUALRT_NATIVE_API_VERSION)
        dualrt::bench::detail::invalid_argument(
            "cuda", DUALRT_NATIVE_ENTRY_NAME,
            "the loader speaks native baseline API version " +
                std::to_string(handles ? handles->api_version : -1) + ", this module version " +
                std::to_string(DUALRT_NATIVE_API_VERSION) + " (rebuild the benchmarks)");
    return new dualrt::bench::cuda::NativeCuda(
        static_cast<CUdevice>(handles->device), reinterpret_cast<CUcontext>(handles->context),
        reinterpret_cast<CUfunction>(handles->empty_kernel),
        reinterpret_cast<CUfunction>(handles->busy_kernel),
        reinterpret_cast<CUfunction>(handles->triad_kernel),
        reinterpret_cast<CUfunction>(handles->stencil_kernel),
        reinterpret_cast<CUfunction>(handles->jacobi_kernel));
}
