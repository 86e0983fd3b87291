// The hand-written OpenCL stream of the triad c = a + s * b: blocks of three host arrays through
// two command queues, block k on queue k % 2 (write a_k and b_k, triad, read c_k), so that the
// writes of one queue overlap the reads of the other on the two copy engines.
#include "native_common.hpp"
#include "native_opencl.hpp"
#include "native_stream.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace dualrt::bench::opencl {
namespace {

// One queue's device buffers, one block of each array; the queue's next block reuses them (the
// queue is in order, so no event is needed).
struct Slot {
    MemObject a, b, c;
};

}  // namespace

StreamTiming NativeOpenCL::stream_triad(HostMemory host, const StreamJob& job) {
    detail::check_stream_job("opencl", job);
    const std::size_t bytes = job.elements * sizeof(float);
    const std::size_t blocks = detail::block_count(job);
    const cl_context context = context_.get();
    // Profiling queues: the start and end markers carry the timestamps of the device time.
    static_assert(detail::stream_queues == 2, "the stream uses timed_[0] and timed_[1]");
    const cl_command_queue queues[detail::stream_queues] = {timed_[0].get(), timed_[1].get()};

    HostBlock a_host(host, bytes, context, queues[0]), b_host(host, bytes, context, queues[0]),
        c_host(host, bytes, context, queues[0]);
    auto* a = reinterpret_cast<float*>(a_host.data());
    auto* b = reinterpret_cast<float*>(b_host.data());
    auto* c = reinterpret_cast<float*>(c_host.data());
    std::memcpy(a, job.a, bytes);
    std::memcpy(b, job.b, bytes);

    const std::size_t slot_bytes = job.block_elements * sizeof(float);
    std::vector<Slot> slots(detail::stream_queues);
    for (std::size_t q = 0; q < detail::stream_queues; ++q) {
        Slot& slot = slots[q];
        slot.a = create_buffer(context, CL_MEM_READ_ONLY, slot_bytes);
        slot.b = create_buffer(context, CL_MEM_READ_ONLY, slot_bytes);
        slot.c = create_buffer(context, CL_MEM_WRITE_ONLY, slot_bytes);
        // NaN on the device too, so a block whose write went missing cannot pass on what an
        // earlier run left there. The fill also places the buffers on the device.
        const cl_uint nan_bits = 0xffffffffu;
        for (const MemObject* buffer : {&slot.a, &slot.b, &slot.c})
            NATIVE_CL(clEnqueueFillBuffer(queues[q], buffer->get(), &nan_bits, sizeof nan_bits, 0,
                                          slot_bytes, 0, nullptr, nullptr));
        // Each queue's kernel object keeps that queue's buffers; only n changes, for a short
        // last block, and arguments are captured at enqueue.
        const cl_kernel kernel = triads_[q].get();
        const cl_mem in_a = slot.a.get(), in_b = slot.b.get(), out_c = slot.c.get();
        NATIVE_CL(clSetKernelArg(kernel, 1, sizeof job.scale, &job.scale));
        NATIVE_CL(clSetKernelArg(kernel, 2, sizeof in_a, &in_a));
        NATIVE_CL(clSetKernelArg(kernel, 3, sizeof in_b, &in_b));
        NATIVE_CL(clSetKernelArg(kernel, 4, sizeof out_c, &out_c));
    }

    const auto enqueue_block = [&](std::size_t k) {
        const std::size_t q = k % detail::stream_queues;
        const cl_command_queue queue = queues[q];
        const Slot& slot = slots[q];
        const cl_kernel kernel = triads_[q].get();
        const std::size_t offset = detail::block_offset(job, k);
        const std::size_t count = detail::block_size(job, k);
        const std::size_t block_bytes = count * sizeof(float);
        NATIVE_CL(clEnqueueWriteBuffer(queue, slot.a.get(), CL_FALSE, 0, block_bytes, a + offset,
                                       0, nullptr, nullptr));
        NATIVE_CL(clEnqueueWriteBuffer(queue, slot.b.get(), CL_FALSE, 0, block_bytes, b + offset,
                                       0, nullptr, nullptr));
        const auto n = static_cast<cl_uint>(count);
        NATIVE_CL(clSetKernelArg(kernel, 0, sizeof n, &n));
        // Every block over the grid of a whole one (the kernel stops at n): PoCL aborts a process
        // whose launches of one kernel over different grids are in flight at once, across its
        // devices too (pocl_release_dlhandle_cache; dualrt guards its own launches, see
        // RELIABILITY.md), and the streams of two PoCL devices side by side end in short blocks
        // of their own.
        const std::size_t global = detail::triad_global_size(job.block_elements);
        const std::size_t local = detail::triad_local_size;
        NATIVE_CL(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr,
                                         nullptr));
        NATIVE_CL(clEnqueueReadBuffer(queue, slot.c.get(), CL_FALSE, 0, block_bytes, c + offset,
                                      0, nullptr, nullptr));
        // Submitted now rather than whenever the driver would, so the copy engines start at once.
        NATIVE_CL(clFlush(queue));
    };

    const auto once = [&]() -> StreamTiming {
        detail::poison(c, job.elements);
        detail::start_together(job);
        detail::StreamClocks clocks;
        clocks.begin = detail::StreamClocks::Clock::now();
        const EventObject start = marker(queues[0]);
        // Flushed: the other queue waits for it, and it is stamped before the first write.
        NATIVE_CL(clFlush(queues[0]));
        const cl_event start_event = start.get();
        for (std::size_t q = 1; q < detail::stream_queues; ++q)
            NATIVE_CL(clEnqueueBarrierWithWaitList(queues[q], 1, &start_event, nullptr));
        clocks.loop_begin = detail::StreamClocks::Clock::now();
        for (std::size_t k = 0; k < blocks; ++k) enqueue_block(k);
        clocks.loop_end = detail::StreamClocks::Clock::now();
        std::vector<EventObject> stops;
        for (const cl_command_queue queue : queues) stops.push_back(marker(queue));
        for (const cl_command_queue queue : queues) NATIVE_CL(clFinish(queue));
        clocks.end = detail::StreamClocks::Clock::now();

        std::uint64_t device_ns = 0;
        for (const EventObject& stop : stops)
            device_ns = std::max(device_ns, end_to_end_ns(start, stop));
        const std::string wrong =
            detail::check_triad(job, [&](std::size_t i) { return c[i]; }, false);
        if (!wrong.empty()) detail::wrong_result("opencl", "native stream of triad", wrong);
        return detail::stream_timing(clocks, static_cast<double>(device_ns) / 1e6, blocks);
    };

    const StreamTiming timing = detail::median_of_runs(job, once);
    std::memcpy(job.c, c, bytes);
    return timing;
}

}  // namespace dualrt::bench::opencl
