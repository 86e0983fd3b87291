// pipeline_stream: c = a + s*b over arrays too large to want on the device at once, streamed
// through a Pipeline that picks the chunks and queues itself, so the copies of some chunks
// overlap the compute of others. `a` and `c` are ordinary std::vectors (staged through pinned
// buffers), `b` is pinned memory (a HostBuffer, copied by DMA): one run may mix both.
#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

int main() try {
    const std::size_t n = std::size_t(1) << 23;  // 32 MiB per array: several chunks' worth
    const float s = 3.0f;

    dualrt::Device device = dualrt::select();
    std::cout << "pipeline_stream on " << dualrt::to_string(device.backend()) << " '"
              << device.name() << "'\n";

    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> a(n), c(n);
    dualrt::HostBuffer<float> b = device.alloc_host<float>(n);
    for (auto& v : a) v = dist(rng);
    for (auto& v : b) v = dist(rng);

    // The built-in triad kernel: c[i] = fma(s, b[i], a[i]), per chunk on the chunk's queue.
    const dualrt::Kernel triad = device.kernel("triad");
    const auto compute = [&](auto& chunk) {
        auto [da, db] = chunk.inputs;
        auto [dc] = chunk.outputs;
        chunk.queue.launch(triad, {chunk.size()}, {}, std::uint32_t(chunk.size()), s, da, db, dc);
    };

    // Create the Pipeline once and reuse it: its first run pays for the device buffers and pinned
    // rings and tells its automatic chunking what this device does, so the second run is the
    // one worth reading.
    dualrt::Pipeline pipeline(device);
    dualrt::PipelineReport report;
    for (int run = 0; run < 2; ++run) {
        std::fill(c.begin(), c.end(), std::nanf(""));  // a chunk that never came back shows
        report = pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), compute);
    }
    std::cout << report.summary();

    // fma rounds once on the device and with std::fma here, so the results match bit for bit.
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float expected = std::fma(s, b[i], a[i]);
        wrong += std::memcmp(&c[i], &expected, sizeof(float)) != 0 ? 1 : 0;
    }
    if (wrong != 0) {
        std::cerr << "error: " << wrong << " of " << n << " elements differ from the host's\n";
        return 1;
    }
    std::cout << n << " elements in " << report.chunks << " chunks, " << report.host_ms
              << " ms for the whole run() on the host clock, equal to the host's bit for bit\n";
    return 0;
} catch (const dualrt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
