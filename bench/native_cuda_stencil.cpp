// The hand-written CUDA stencil: a float image streamed through the built-in stencil_blur3x3 in
// blocks of rows, on streams that take the blocks in turn (the CUDA guide's scheme), from
// pageable memory through each stream's own pinned buffers, or from pinned memory directly.
#include "native_common.hpp"
#include "native_cuda.hpp"

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

namespace dualrt::bench::cuda {
namespace {

constexpr std::size_t no_block = static_cast<std::size_t>(-1);

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
    TimingEvent done;                // after the lane's last download
    std::size_t pending = no_block;  // the block whose staged output awaits its memcpy out
};

}  // namespace

double NativeCuda::stencil_ms(const StencilJob& job) {
    detail::check_stencil_job("cuda", job);
    const bool staged = job.host == HostMemory::pageable;
    const std::size_t width = job.width;
    const std::size_t row_bytes = width * sizeof(float);
    const std::size_t blocks = detail::stencil_blocks(job);

    Current current(context_);  // first in, last out: everything below is freed inside it
    std::vector<std::unique_ptr<Lane>> lanes;
    for (int l = 0; l < job.lanes; ++l)
        lanes.push_back(std::make_unique<Lane>((job.rows_per_chunk + 2) * row_bytes,
                                               job.rows_per_chunk * row_bytes, staged));
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

    // The lane's staged output of its previous block, once landed, to its place in the output.
    const auto copy_out = [&](Lane& lane) {
        if (lane.pending == no_block) return;
        NATIVE_CU(cuEventSynchronize(lane.done.get()));
        const detail::StencilBlock block = detail::stencil_block(job, lane.pending);
        std::memcpy(output + block.first_row * row_bytes, lane.stage_out->get(),
                    block.rows * row_bytes);
        lane.pending = no_block;
    };
    const auto once = [&]() -> double {
        const auto begin = std::chrono::steady_clock::now();
        for (std::size_t b = 0; b < blocks; ++b) {
            Lane& lane = *lanes[b % lanes.size()];
            const detail::StencilBlock block = detail::stencil_block(job, b);
            const unsigned char* source = image + block.in_first_row() * row_bytes;
            unsigned char* destination = output + block.first_row * row_bytes;
            if (staged) {
                copy_out(lane);  // its buffers are free once its previous block has landed
                std::memcpy(lane.stage_in->get(), source, block.in_rows() * row_bytes);
                source = lane.stage_in->get();
                destination = lane.stage_out->get();
            }
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
            NATIVE_CU(cuMemcpyDtoHAsync(destination, lane.out.get(), block.rows * row_bytes,
                                        stream));
            if (staged) {
                NATIVE_CU(cuEventRecord(lane.done.get(), stream));
                lane.pending = b;
            }
        }
        for (auto& lane : lanes) {
            if (staged)
                copy_out(*lane);
            else
                NATIVE_CU(cuStreamSynchronize(lane->stream.get()));
        }
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
            .count();
    };

    for (int i = 0; i < detail::warmup_runs; ++i) once();
    std::vector<double> times;
    for (int i = 0; i < job.repetitions; ++i) times.push_back(once());
    if (!staged) std::memcpy(job.output, output_pinned->get(), job.height * row_bytes);
    return detail::median(std::move(times));
}

}  // namespace dualrt::bench::cuda
