// The hand-written OpenCL pipeline: chunks of a pinned array uploaded, run through the busy
// kernel in place and downloaded, on one, two or three queues with events between the stages.
#include "native_common.hpp"
#include "native_opencl.hpp"

#include <cstring>
#include <vector>

namespace dualrt::bench::opencl {

double NativeOpenCL::pipeline_ms(std::size_t elements, unsigned iterations, int chunks,
                                 int queues, int repetitions) {
    detail::check_pipeline_arguments("opencl", elements, chunks, queues, repetitions);
    // busy has no offset parameter, so each chunk is a sub-buffer, whose origin must be a
    // multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN: chunk boundaries are rounded down to it.
    const std::vector<std::size_t> bounds =
        detail::chunk_bounds("opencl", elements, chunks, align_elements_);
    const auto count = static_cast<std::size_t>(chunks);
    const std::size_t bytes = elements * sizeof(float);
    const cl_context context = context_.get();

    // queues == 1: everything on `up`. 2: uploads and downloads on `up` (the copy queue),
    // kernels on `compute`. 3: one queue per stage.
    const cl_command_queue up = timed_[0].get();
    const cl_command_queue compute = queues >= 2 ? timed_[1].get() : up;
    const cl_command_queue down = queues == 3 ? timed_[2].get() : up;
    const bool cross = queues > 1;  // stages on different queues need events between them

    PinnedHost input(context, up, bytes), output(context, up, bytes);
    auto* in = reinterpret_cast<float*>(input.data());
    auto* out = reinterpret_cast<float*>(output.data());
    for (std::size_t i = 0; i < elements; ++i) in[i] = detail::pipeline_input(i);

    // One device array; every stage reaches a chunk through that chunk's sub-buffer (made here,
    // outside the timing), since OpenCL leaves concurrent use of a buffer and its sub-buffers
    // undefined while disjoint sub-buffers are fine.
    MemObject data = create_buffer(context, CL_MEM_READ_WRITE, bytes);
    std::vector<MemObject> parts;
    parts.reserve(count);
    for (std::size_t c = 0; c < count; ++c) {
        const cl_buffer_region region{bounds[c] * sizeof(float),
                                      (bounds[c + 1] - bounds[c]) * sizeof(float)};
        cl_int code = CL_SUCCESS;
        parts.emplace_back(clCreateSubBuffer(data.get(), CL_MEM_READ_WRITE,
                                             CL_BUFFER_CREATE_TYPE_REGION, &region, &code));
        check(code, "clCreateSubBuffer", "chunk " + std::to_string(c) + " at byte " +
                                             std::to_string(region.origin));
    }
    std::vector<EventObject> uploaded(count), computed(count);

    const auto size = [&](std::size_t c) { return bounds[c + 1] - bounds[c]; };
    const auto upload = [&](std::size_t c) {
        NATIVE_CL(clEnqueueWriteBuffer(up, parts[c].get(), CL_FALSE, 0, size(c) * sizeof(float),
                                       in + bounds[c], 0, nullptr,
                                       cross ? uploaded[c].out() : nullptr));
        // Another queue waits for this event: OpenCL needs the command flushed for that.
        if (cross) NATIVE_CL(clFlush(up));
    };
    const auto run_kernel = [&](std::size_t c) {
        const cl_mem part = parts[c].get();
        const auto n = static_cast<cl_uint>(size(c));
        const cl_uint work = iterations;
        // Arguments are captured at enqueue, so one kernel object serves every chunk.
        NATIVE_CL(clSetKernelArg(busy_.get(), 0, sizeof part, &part));
        NATIVE_CL(clSetKernelArg(busy_.get(), 1, sizeof n, &n));
        NATIVE_CL(clSetKernelArg(busy_.get(), 2, sizeof work, &work));
        const std::size_t local = detail::busy_local_size;
        const std::size_t global = (size(c) + local - 1) / local * local;
        const cl_event after = cross ? uploaded[c].get() : nullptr;
        NATIVE_CL(clEnqueueNDRangeKernel(compute, busy_.get(), 1, nullptr, &global, &local,
                                         cross ? 1 : 0, cross ? &after : nullptr,
                                         cross ? computed[c].out() : nullptr));
        if (cross) NATIVE_CL(clFlush(compute));
    };
    const auto download = [&](std::size_t c) {
        const cl_event after = cross ? computed[c].get() : nullptr;
        NATIVE_CL(clEnqueueReadBuffer(down, parts[c].get(), CL_FALSE, 0, size(c) * sizeof(float),
                                      out + bounds[c], cross ? 1 : 0, cross ? &after : nullptr,
                                      nullptr));
        // Submitted now rather than at the next flush, so the download engine does not idle.
        if (cross) NATIVE_CL(clFlush(down));
    };

    const auto once = [&]() -> double {
        std::memset(out, 0xff, bytes);  // NaN: a chunk that never came back fails the check
        EventObject start = marker(up);
        NATIVE_CL(clFlush(up));
        if (queues == 2) {
            // One copy queue: upload c+1 is enqueued before download c, which must wait for
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
        // The last download is the last command of `down`, and it waits (through the events)
        // for everything before it.
        EventObject stop = marker(down);
        NATIVE_CL(clFlush(down));
        const double ms = static_cast<double>(end_to_end_ns(start, stop)) / 1e6;
        for (cl_command_queue queue : {up, compute, down}) NATIVE_CL(clFinish(queue));
        return ms;
    };

    for (int i = 0; i < detail::warmup_runs; ++i) once();
    detail::check_pipeline_output("opencl", out, bounds, iterations);
    std::vector<double> times;
    for (int i = 0; i < repetitions; ++i) times.push_back(once());
    detail::check_pipeline_output("opencl", out, bounds, iterations);
    return detail::median(std::move(times));
}

}  // namespace dualrt::bench::opencl
