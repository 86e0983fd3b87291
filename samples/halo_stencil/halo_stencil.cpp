// halo_stencil: a program's own kernel, written twice (smooth5.cl for OpenCL, smooth5.cu for
// CUDA, embedded by dualrt_add_kernels in CMake), run over a long signal in chunks by a Pipeline
// whose input reaches two elements into each neighbouring chunk (a halo), so that every chunk
// computes its 5-point stencil on its own and the chunks still join seamlessly.
#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

namespace {

// The kernel's sum on the host, in the same order, with the ends of the signal clamped.
std::vector<float> smooth5_on_host(const std::vector<float>& in) {
    const std::size_t last = in.size() - 1;
    const auto at = [&](std::size_t i, long step) {
        const long j = static_cast<long>(i) + step;
        return in[static_cast<std::size_t>(std::clamp(j, 0L, static_cast<long>(last)))];
    };
    std::vector<float> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i)
        out[i] = (((at(i, -2) + at(i, 2)) + 2.0f * (at(i, -1) + at(i, 1))) + 2.0f * in[i]) *
                 0.125f;
    return out;
}

}  // namespace

int main() try {
    const std::size_t n = 3'000'017;  // not a multiple of the chunk count: the last one is short
    const std::size_t radius = 2;     // the stencil reads two elements on either side

    dualrt::Device device = dualrt::select();
    std::cout << "halo_stencil on " << dualrt::to_string(device.backend()) << " '"
              << device.name() << "'\n";

    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> signal(n), smoothed(n, std::nanf(""));  // NaN: a missing chunk shows
    for (auto& v : signal) v = dist(rng);

    // Found by name like a built-in kernel: dualrt_add_kernels registered the twins at start-up,
    // and the device builds the text of its own backend on first use.
    const dualrt::Kernel smooth5 = device.kernel("smooth5");

    // Sixteen chunks, fixed here so that the signal has fifteen seams for the halos to cross.
    dualrt::PipelineOptions options;
    options.chunking = dualrt::Chunking::count(16);
    dualrt::Pipeline pipeline(device, options);
    const dualrt::PipelineReport report = pipeline.run(
        dualrt::inputs(signal).with_halo(dualrt::Halo::elements(radius, radius)),
        dualrt::outputs(smoothed), [&](auto& chunk) {
            // `in` is halo_before + size() + halo_after elements; the first and last chunks get
            // no halo at the signal's ends, which the kernel clamps to.
            const auto& [in] = chunk.inputs;
            const auto& [out] = chunk.outputs;
            chunk.queue.launch(smooth5, {chunk.size()}, {}, in, out, std::uint32_t(chunk.size()),
                               std::uint32_t(chunk.halo_before), std::uint32_t(chunk.halo_after));
        });

    const std::vector<float> expected = smooth5_on_host(signal);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
        wrong += std::memcmp(&smoothed[i], &expected[i], sizeof(float)) != 0 ? 1 : 0;
    std::cout << "smooth5 over " << n << " floats in " << report.chunks << " chunks, each "
              << "reading " << radius << " halo elements on either side: " << report.measured_ms
              << " ms on the device\n";
    if (wrong != 0) {
        std::cerr << "error: " << wrong << " of " << n << " elements differ from the host's\n";
        return 1;
    }
    std::cout << "equal to the host's stencil bit for bit\n";
    return 0;
} catch (const dualrt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
