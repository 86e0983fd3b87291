// The stencil benchmark's work: the image, its host reference, and dualrt's streamed runs of the
// built-in stencil_blur3x3 through a Pipeline with a halo of one row, each checked bit for bit.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::samples {

struct Image {
    std::size_t width = 0;
    std::size_t height = 0;
    std::vector<float> pixels;  // row after row, values in [0, 1)
};

// A `width` x `height` image of random values from `seed`.
Image random_image(std::size_t width, std::size_t height, unsigned seed);

// The 3x3 blur of `image` on the host, its rows spread over the host's threads.
std::vector<float> reference_blur(const Image& image);

// "" when `output` equals `expected` bit for bit; otherwise where and how the first pixel differs.
std::string compare_pixels(const std::vector<float>& output, const std::vector<float>& expected,
                           std::size_t width);

// What the median run of a Pipeline measured.
struct StreamedRun {
    double host_ms = 0.0;    // wall-clock time of run(): the whole streamed job
    dualrt::PipelineReport report;
};

// Streams `image` through the stencil on `pipeline`, `repetitions` times after one untimed run
// (which also teaches automatic chunking its model), from pageable vectors or from pinned copies
// (`pinned`). Every run's output is poisoned first and checked against `expected`; a mismatch
// throws std::runtime_error naming the run.
StreamedRun run_streamed(dualrt::Pipeline& pipeline, const Image& image,
                         const std::vector<float>& expected, bool pinned, int repetitions);

}  // namespace dualrt::samples
