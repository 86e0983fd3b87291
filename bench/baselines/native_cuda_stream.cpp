// The hand-written CUDA stream of the triad c = a + s * b: blocks of three host arrays through
// two streams, block k on stream k % 2 (upload a_k and b_k, triad, download c_k), so that the
// uploads of one stream overlap the downloads of the other on the two copy engines.
#include "native_common.hpp"
#include "native_cuda.hpp"
#include "native_stream.hpp"

#include <algorithm>
#include <cstring>
#include <memory>

namespace dualrt::bench::cuda {
namespace {

// One stream's device buffers, one block of each array; the stream's next block reuses them
// (in stream order, so no event is needed).
struct Slot {
    explicit Slot(std::size_t bytes) : a(bytes), b(bytes), c(bytes) {}
    DeviceMemory a, b, c;
};

}  // namespace

StreamTiming NativeCuda::stream_triad(HostMemory host, const StreamJob& job) {
    detail::check_stream_job("cuda", job);
    const std::size_t bytes = job.elements * sizeof(float);
    const std::size_t blocks = detail::block_count(job);

    Current current(context_);  // first in, last out: everything below is freed inside it
    HostBlock a_host(host, bytes), b_host(host, bytes), c_host(host, bytes);
    auto* a = reinterpret_cast<float*>(a_host.data());
    auto* b = reinterpret_cast<float*>(b_host.data());
    auto* c = reinterpret_cast<float*>(c_host.data());
    std::memcpy(a, job.a, bytes);
    std::memcpy(b, job.b, bytes);

    Stream streams[detail::stream_queues];
    std::unique_ptr<Slot> slots[detail::stream_queues];
    for (std::size_t q = 0; q < detail::stream_queues; ++q) {
        slots[q] = std::make_unique<Slot>(job.block_elements * sizeof(float));
        // NaN on the device too, so a block whose upload went missing cannot pass on what an
        // earlier run (or an earlier user of the same memory) left there.
        for (const DeviceMemory* memory : {&slots[q]->a, &slots[q]->b, &slots[q]->c})
            NATIVE_CU(cuMemsetD32Async(memory->get(), 0xffffffffu, job.block_elements,
                                       streams[q].get()));
    }

    const auto enqueue_block = [&](std::size_t k) {
        const CUstream stream = streams[k % detail::stream_queues].get();
        const Slot& slot = *slots[k % detail::stream_queues];
        const std::size_t offset = detail::block_offset(job, k);
        const std::size_t count = detail::block_size(job, k);
        NATIVE_CU(cuMemcpyHtoDAsync(slot.a.get(), a + offset, count * sizeof(float), stream));
        NATIVE_CU(cuMemcpyHtoDAsync(slot.b.get(), b + offset, count * sizeof(float), stream));
        auto n = static_cast<unsigned>(count);
        float scale = job.scale;
        CUdeviceptr in_a = slot.a.get(), in_b = slot.b.get(), out_c = slot.c.get();
        void* params[] = {&n, &scale, &in_a, &in_b, &out_c};
        const auto groups =
            static_cast<unsigned>(detail::triad_global_size(count) / detail::triad_local_size);
        NATIVE_CU(cuLaunchKernel(triad_, groups, 1, 1,
                                 static_cast<unsigned>(detail::triad_local_size), 1, 1, 0, stream,
                                 params, nullptr));
        NATIVE_CU(cuMemcpyDtoHAsync(c + offset, slot.c.get(), count * sizeof(float), stream));
    };

    TimingEvent start, stops[detail::stream_queues];
    const auto once = [&]() -> StreamTiming {
        detail::poison(c, job.elements);
        detail::start_together(job);
        detail::StreamClocks clocks;
        clocks.begin = detail::StreamClocks::Clock::now();
        NATIVE_CU(cuEventRecord(start.get(), streams[0].get()));
        for (std::size_t q = 1; q < detail::stream_queues; ++q)
            NATIVE_CU(cuStreamWaitEvent(streams[q].get(), start.get(), 0));
        clocks.loop_begin = detail::StreamClocks::Clock::now();
        for (std::size_t k = 0; k < blocks; ++k) enqueue_block(k);
        clocks.loop_end = detail::StreamClocks::Clock::now();
        for (std::size_t q = 0; q < detail::stream_queues; ++q)
            NATIVE_CU(cuEventRecord(stops[q].get(), streams[q].get()));
        for (const Stream& stream : streams) NATIVE_CU(cuStreamSynchronize(stream.get()));
        clocks.end = detail::StreamClocks::Clock::now();

        double device_ms = 0.0;
        for (const TimingEvent& stop : stops)
            device_ms = std::max<double>(device_ms, elapsed_ms(start, stop));
        const std::string wrong =
            detail::check_triad(job, [&](std::size_t i) { return c[i]; }, false);
        if (!wrong.empty()) detail::wrong_result("cuda", "native stream of triad", wrong);
        return detail::stream_timing(clocks, device_ms, blocks);
    };

    const StreamTiming timing = detail::median_of_runs(job, once);
    std::memcpy(job.c, c, bytes);
    return timing;
}

}  // namespace dualrt::bench::cuda
