// The hand-written OpenCL stencil: a float image streamed through the built-in stencil_blur3x3 in
// blocks of rows, on in-order queues that take the blocks in turn, from pageable memory through
// each queue's own pinned buffers, or from pinned memory directly. The host's side of the loop
// is detail::run_stencil_blocks (native_common.hpp).
#include "native_common.hpp"
#include "native_opencl.hpp"

#include <cstring>
#include <memory>
#include <vector>

namespace dualrt::bench::opencl {
namespace {

// One queue and the buffers of the block it runs. The queue is declared first: the pinned
// buffers are unmapped on it when they go.
struct Lane {
    Lane(cl_context context, cl_device_id device, std::size_t in_bytes, std::size_t out_bytes,
         bool staged)
        : queue(create_queue(context, device, 0)),  // no profiling: as a plain program makes it
          in(create_buffer(context, CL_MEM_READ_ONLY, in_bytes)),
          out(create_buffer(context, CL_MEM_WRITE_ONLY, out_bytes)) {
        if (!staged) return;
        stage_in = std::make_unique<PinnedHost>(context, queue.get(), in_bytes);
        stage_out = std::make_unique<PinnedHost>(context, queue.get(), out_bytes);
    }
    QueueObject queue;
    MemObject in, out;
    std::unique_ptr<PinnedHost> stage_in, stage_out;  // pageable jobs only
    EventObject done;  // the lane's last download
};

}  // namespace

double NativeOpenCL::stencil_ms(const StencilJob& job) {
    detail::check_stencil_job("opencl", job);
    const bool staged = job.host == HostMemory::pageable;
    const std::size_t width = job.width;
    const std::size_t row_bytes = width * sizeof(float);
    const cl_context context = context_.get();

    std::vector<std::unique_ptr<Lane>> lanes;
    std::vector<detail::StagedLane> staging(static_cast<std::size_t>(job.lanes));
    for (auto& pinned : staging) {
        lanes.push_back(std::make_unique<Lane>(context, device_,
                                               (job.rows_per_chunk + 2) * row_bytes,
                                               job.rows_per_chunk * row_bytes, staged));
        if (!staged) continue;
        pinned.in = lanes.back()->stage_in->data();
        pinned.out = lanes.back()->stage_out->data();
    }
    // Pinned jobs stream from and to pinned copies, filled and emptied outside the timing.
    std::unique_ptr<PinnedHost> image_pinned, output_pinned;
    if (!staged) {
        image_pinned = std::make_unique<PinnedHost>(context, plain_.get(), job.height * row_bytes);
        output_pinned = std::make_unique<PinnedHost>(context, plain_.get(), job.height * row_bytes);
        std::memcpy(image_pinned->data(), job.image, job.height * row_bytes);
    }
    const auto* image = staged ? reinterpret_cast<const unsigned char*>(job.image)
                               : image_pinned->data();
    auto* output = staged ? reinterpret_cast<unsigned char*>(job.output) : output_pinned->data();

    const auto enqueue = [&](std::size_t l, const detail::StencilBlock& block,
                             const unsigned char* source, unsigned char* destination) {
        Lane& lane = *lanes[l];
        const cl_command_queue queue = lane.queue.get();
        NATIVE_CL(clEnqueueWriteBuffer(queue, lane.in.get(), CL_FALSE, 0,
                                       block.in_rows() * row_bytes, source, 0, nullptr, nullptr));
        const cl_mem in = lane.in.get(), out = lane.out.get();
        const auto w = static_cast<cl_uint>(width), rows = static_cast<cl_uint>(block.rows);
        const auto top = static_cast<cl_uint>(block.halo_top);
        const auto bottom = static_cast<cl_uint>(block.halo_bottom);
        // Arguments are captured at enqueue, so one kernel object serves every block.
        NATIVE_CL(clSetKernelArg(stencil_.get(), 0, sizeof in, &in));
        NATIVE_CL(clSetKernelArg(stencil_.get(), 1, sizeof out, &out));
        NATIVE_CL(clSetKernelArg(stencil_.get(), 2, sizeof w, &w));
        NATIVE_CL(clSetKernelArg(stencil_.get(), 3, sizeof rows, &rows));
        NATIVE_CL(clSetKernelArg(stencil_.get(), 4, sizeof top, &top));
        NATIVE_CL(clSetKernelArg(stencil_.get(), 5, sizeof bottom, &bottom));
        const std::size_t local[2] = {detail::stencil_local_x, detail::stencil_local_y};
        const std::size_t global[2] = {(width + local[0] - 1) / local[0] * local[0],
                                       (block.rows + local[1] - 1) / local[1] * local[1]};
        NATIVE_CL(clEnqueueNDRangeKernel(queue, stencil_.get(), 2, nullptr, global, local, 0,
                                         nullptr, nullptr));
        NATIVE_CL(clEnqueueReadBuffer(queue, lane.out.get(), CL_FALSE, 0, block.rows * row_bytes,
                                      destination, 0, nullptr,
                                      staged ? lane.done.out() : nullptr));
        // Submitted now: an OpenCL queue need not start its commands before a flush.
        NATIVE_CL(clFlush(queue));
    };
    const auto wait_lane = [&](std::size_t l) { wait(lanes[l]->done); };
    const auto finish_lane = [&](std::size_t l) { NATIVE_CL(clFinish(lanes[l]->queue.get())); };
    const auto once = [&] {
        return detail::run_stencil_blocks(job, image, output, staging, staged, enqueue,
                                          wait_lane, finish_lane);
    };

    for (int i = 0; i < detail::warmup_runs; ++i) once();
    std::vector<double> times;
    for (int i = 0; i < job.repetitions; ++i) times.push_back(once());
    if (!staged) std::memcpy(job.output, output_pinned->data(), job.height * row_bytes);
    for (auto& lane : lanes) NATIVE_CL(clFinish(lane->queue.get()));
    return detail::median(std::move(times));
}

}  // namespace dualrt::bench::opencl
