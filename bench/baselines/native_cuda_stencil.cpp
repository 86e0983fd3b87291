// The hand-written CUDA stencil: a float image streamed through the built-in stencil_blur3x3 in
// blocks of rows, on streams that take the blocks in turn (the CUDA guide's scheme), from
// pageable memory through each stream's own pinned buffers, or from pinned memory directly.
// The host's side of the loop is detail::run_stencil_blocks (native_common.hpp).
#include "native_common.hpp"
#include "native_cuda.hpp"

#include <cstring>
#include <memory>
#include <vector>

namespace dualrt::bench::cuda {
namespace {

// One stream and the buffers of the block it runs.
struct Lane {
    Lane(std::size_t in_bytes, std::size_t out_bytes, bool staged)
        : in(in_bytes), out(out_bytes), done(false) {
        if (!staged) return;
        stage_in = std::make_unique<PinnedMemory>(in_bytes);
        stage_out = std::make_unique<PinnedMemory>(out_bytes);
    }
    Stream stream;
    DeviceMemory in, out;
    std::unique_ptr<PinnedMemory> stage_in, stage_out;  // pageable jobs only
    TimingEvent done;  // after the lane's last download (ordering only: no timing)
};

}  // namespace

double NativeCuda::stencil_ms(const StencilJob& job) {
    detail::check_stencil_job("cuda", job);
    const bool staged = job.host == HostMemory::pageable;
    const std::size_t width = job.width;
    const std::size_t row_bytes = width * sizeof(float);

    Current current(context_);  // first in, last out: everything below is freed inside it
    std::vector<std::unique_ptr<Lane>> lanes;
    std::vector<detail::StagedLane> staging(static_cast<std::size_t>(job.lanes));
    for (auto& pinned : staging) {
        lanes.push_back(std::make_unique<Lane>((job.rows_per_chunk + 2) * row_bytes,
                                               job.rows_per_chunk * row_bytes, staged));
        if (!staged) continue;
        pinned.in = lanes.back()->stage_in->get();
        pinned.out = lanes.back()->stage_out->get();
    }
    // Pinned jobs stream from and to pinned copies, filled and emptied outside the timing.
    std::unique_ptr<PinnedMemory> image_pinned, output_pinned;
    if (!staged) {
        image_pinned = std::make_unique<PinnedMemory>(job.height * row_bytes);
        output_pinned = std::make_unique<PinnedMemory>(job.height * row_bytes);
        std::memcpy(image_pinned->get(), job.image, job.height * row_bytes);
    }
    const auto* image = staged ? reinterpret_cast<const unsigned char*>(job.image)
                               : image_pinned->get();
    auto* output = staged ? reinterpret_cast<unsigned char*>(job.output) : output_pinned->get();

    const auto enqueue = [&](std::size_t l, const detail::StencilBlock& block,
                             const unsigned char* source, unsigned char* destination) {
        Lane& lane = *lanes[l];
        const CUstream stream = lane.stream.get();
        NATIVE_CU(cuMemcpyHtoDAsync(lane.in.get(), source, block.in_rows() * row_bytes, stream));
        CUdeviceptr in = lane.in.get(), out = lane.out.get();
        unsigned w = static_cast<unsigned>(width), rows = static_cast<unsigned>(block.rows);
        unsigned top = static_cast<unsigned>(block.halo_top);
        unsigned bottom = static_cast<unsigned>(block.halo_bottom);
        void* params[] = {&in, &out, &w, &rows, &top, &bottom};
        const auto grid_x = static_cast<unsigned>((width + detail::stencil_local_x - 1) /
                                                  detail::stencil_local_x);
        const auto grid_y = static_cast<unsigned>((block.rows + detail::stencil_local_y - 1) /
                                                  detail::stencil_local_y);
        NATIVE_CU(cuLaunchKernel(stencil_, grid_x, grid_y, 1,
                                 static_cast<unsigned>(detail::stencil_local_x),
                                 static_cast<unsigned>(detail::stencil_local_y), 1, 0, stream,
                                 params, nullptr));
        NATIVE_CU(cuMemcpyDtoHAsync(destination, lane.out.get(), block.rows * row_bytes, stream));
        if (staged) NATIVE_CU(cuEventRecord(lane.done.get(), stream));
    };
    const auto wait_lane = [&](std::size_t l) {
        NATIVE_CU(cuEventSynchronize(lanes[l]->done.get()));
    };
    const auto finish_lane = [&](std::size_t l) {
        NATIVE_CU(cuStreamSynchronize(lanes[l]->stream.get()));
    };
    const auto once = [&] {
        return detail::run_stencil_blocks(job, image, output, staging, staged, enqueue,
                                          wait_lane, finish_lane);
    };

    for (int i = 0; i < detail::warmup_runs; ++i) once();
    std::vector<double> times;
    for (int i = 0; i < job.repetitions; ++i) times.push_back(once());
    if (!staged) std::memcpy(job.output, output_pinned->get(), job.height * row_bytes);
    return detail::median(std::move(times));
}

}  // namespace dualrt::bench::cuda
