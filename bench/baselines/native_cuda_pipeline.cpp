// The hand-written CUDA pipeline: chunks of a pinned array uploaded, run through the busy
// kernel in place and downloaded, on one, two or three streams with events between the stages.
#include "native_common.hpp"
#include "native_cuda.hpp"

#include <cstring>
#include <vector>

namespace dualrt::bench::cuda {

double NativeCuda::pipeline_ms(std::size_t elements, unsigned iterations, int chunks, int queues,
                               int repetitions) {
    detail::check_pipeline_arguments("cuda", elements, chunks, queues, repetitions);
    const std::vector<std::size_t> bounds = detail::chunk_bounds("cuda", elements, chunks, 1);
    const auto count = static_cast<std::size_t>(chunks);
    const std::size_t bytes = elements * sizeof(float);

    Current current(context_);
    PinnedMemory input(bytes), output(bytes);
    DeviceMemory data(bytes);
    auto* in = reinterpret_cast<float*>(input.get());
    auto* out = reinterpret_cast<float*>(output.get());
    for (std::size_t i = 0; i < elements; ++i) in[i] = detail::pipeline_input(i);

    // queues == 1: everything on `upload`. 2: uploads and downloads on `upload` (the copy
    // stream), kernels on `compute`. 3: one stream per stage.
    Stream upload_stream, compute_stream, download_stream;
    const CUstream up = upload_stream.get();
    const CUstream compute = queues >= 2 ? compute_stream.get() : up;
    const CUstream down = queues == 3 ? download_stream.get() : up;
    const bool cross = queues > 1;  // stages on different streams need events between them

    std::vector<TimingEvent> uploaded, computed;
    uploaded.reserve(count);
    computed.reserve(count);
    for (std::size_t c = 0; c < count && cross; ++c) {
        uploaded.emplace_back(false);  // ordering only: events without timing are cheaper
        computed.emplace_back(false);
    }
    TimingEvent start, stop;

    const auto offset = [&](std::size_t c) { return bounds[c]; };
    const auto size = [&](std::size_t c) { return bounds[c + 1] - bounds[c]; };
    const auto device_at = [&](std::size_t c) { return data.get() + offset(c) * sizeof(float); };

    const auto upload = [&](std::size_t c) {
        NATIVE_CU(cuMemcpyHtoDAsync(device_at(c), in + offset(c), size(c) * sizeof(float), up));
        if (cross) NATIVE_CU(cuEventRecord(uploaded[c].get(), up));
    };
    const auto run_kernel = [&](std::size_t c) {
        if (cross) NATIVE_CU(cuStreamWaitEvent(compute, uploaded[c].get(), 0));
        CUdeviceptr pointer = device_at(c);
        unsigned n = static_cast<unsigned>(size(c));
        unsigned work = iterations;
        void* params[] = {&pointer, &n, &work};
        const auto blocks = static_cast<unsigned>((size(c) + detail::busy_local_size - 1) /
                                                  detail::busy_local_size);
        NATIVE_CU(cuLaunchKernel(busy_, blocks, 1, 1,
                                 static_cast<unsigned>(detail::busy_local_size), 1, 1, 0, compute,
                                 params, nullptr));
        if (cross) NATIVE_CU(cuEventRecord(computed[c].get(), compute));
    };
    const auto download = [&](std::size_t c) {
        if (cross) NATIVE_CU(cuStreamWaitEvent(down, computed[c].get(), 0));
        NATIVE_CU(cuMemcpyDtoHAsync(out + offset(c), device_at(c), size(c) * sizeof(float), down));
    };

    const auto once = [&]() -> double {
        std::memset(out, 0xff, bytes);  // NaN: a chunk that never came back fails the check
        NATIVE_CU(cuEventRecord(start.get(), up));
        if (queues == 2) {
            // One copy stream: upload c+1 is enqueued before download c, which must wait for
            // kernel c, so the next upload overlaps the kernel instead of queueing behind it.
            upload(0);
            for (std::size_t c = 0; c < count; ++c) {
                if (c + 1 < count) upload(c + 1);
                run_kernel(c);
                download(c);
            }
        } else {
            for (std::size_t c = 0; c < count; ++c) {
                upload(c);
                run_kernel(c);
                download(c);
            }
        }
        // The last download is the last work on `down`, and it waits (through the events) for
        // everything before it.
        NATIVE_CU(cuEventRecord(stop.get(), down));
        return elapsed_ms(start, stop);
    };

    for (int i = 0; i < detail::warmup_runs; ++i) once();
    detail::check_pipeline_output("cuda", out, bounds, iterations);
    std::vector<double> times;
    for (int i = 0; i < repetitions; ++i) times.push_back(once());
    detail::check_pipeline_output("cuda", out, bounds, iterations);
    return detail::median(std::move(times));
}

}  // namespace dualrt::bench::cuda
