#include "stencil_runs.hpp"
#include "stencil_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <future>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace dualrt::samples {

Image random_image(std::size_t width, std::size_t height, unsigned seed) {
    Image image{width, height, std::vector<float>(width * height)};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    for (auto& v : image.pixels) v = dist(rng);
    return image;
}

std::vector<float> reference_blur(const Image& image) {
    std::vector<float> out(image.pixels.size());
    const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t rows = (image.height + threads - 1) / threads;
    std::vector<std::future<void>> parts;
    for (std::size_t first = 0; first < image.height; first += rows)
        parts.push_back(std::async(std::launch::async, [&, first] {
            blur3x3_rows(image.pixels.data(), out.data(), image.width, image.height, first, rows);
        }));
    for (auto& part : parts) part.get();
    return out;
}

std::string compare_pixels(const std::vector<float>& output, const std::vector<float>& expected,
                           std::size_t width) {
    if (output.size() != expected.size()) return "the output has the wrong size";
    for (std::size_t i = 0; i < output.size(); ++i) {
        if (std::memcmp(&output[i], &expected[i], sizeof(float)) == 0) continue;
        std::ostringstream what;
        what.precision(9);
        what << "pixel (" << i % width << ", " << i / width << ") is " << output[i]
             << ", expected " << expected[i];
        return what.str();
    }
    return {};
}

StreamedRun run_streamed(dualrt::Pipeline& pipeline, const Image& image,
                         const std::vector<float>& expected, bool pinned, int repetitions) {
    const dualrt::Device& device = pipeline.device();
    const dualrt::Kernel stencil = device.kernel("stencil_blur3x3");
    const std::size_t width = image.width;
    const auto compute = [&](auto& chunk) {
        const auto& in = std::get<0>(chunk.inputs);
        // 64 work-items along a row (coalesced) by 4 rows, as the native baselines launch it.
        chunk.queue.launch(stencil, {width, chunk.rows()}, {64, 4}, in, std::get<0>(chunk.outputs),
                           static_cast<std::uint32_t>(width),
                           static_cast<std::uint32_t>(chunk.rows()),
                           static_cast<std::uint32_t>(chunk.halo_before / width),
                           static_cast<std::uint32_t>(chunk.halo_after / width));
    };
    const dualrt::Halo halo = dualrt::Halo::rows(width, 1);
    std::vector<float> output(image.pixels.size());
    dualrt::HostBuffer<float> pinned_image, pinned_output;
    if (pinned) {
        pinned_image = device.alloc_host<float>(image.pixels.size());
        pinned_output = device.alloc_host<float>(image.pixels.size());
        std::copy(image.pixels.begin(), image.pixels.end(), pinned_image.begin());
    }
    std::vector<StreamedRun> runs;
    for (int r = 0; r <= repetitions; ++r) {
        // NaN: a block that never came back fails the check.
        const float poison = std::nanf("");
        std::fill(output.begin(), output.end(), poison);
        if (pinned) std::fill(pinned_output.begin(), pinned_output.end(), poison);
        StreamedRun run;
        const auto begun = std::chrono::steady_clock::now();
        run.report = pinned ? pipeline.run(dualrt::inputs(pinned_image).with_halo(halo),
                                           dualrt::outputs(pinned_output), compute)
                            : pipeline.run(dualrt::inputs(image.pixels).with_halo(halo),
                                           dualrt::outputs(output), compute);
        run.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                begun)
                          .count();
        if (pinned) std::copy(pinned_output.begin(), pinned_output.end(), output.begin());
        const std::string wrong = compare_pixels(output, expected, width);
        if (!wrong.empty())
            throw std::runtime_error("dualrt's streamed stencil (" + run.report.chunking +
                                     ") computed a wrong image: " + wrong);
        if (r > 0) runs.push_back(std::move(run));  // r == 0: untimed first run
    }
    std::sort(runs.begin(), runs.end(),
              [](const auto& a, const auto& b) { return a.host_ms < b.host_ms; });
    return runs[runs.size() / 2];
}

}  // namespace dualrt::samples
