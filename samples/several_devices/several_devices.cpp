// several_devices: devices of one process working together. A buffer is computed on one device
// and copied to another, whose queue first waits for the first device's kernel (an event of
// another device); then one Pipeline spreads a job over every device present, handing each chunk
// to whichever device is ready for it. Needs two devices: without a GPU, PoCL gives two CPU devices
// with POCL_DEVICES="pthread pthread".
#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

std::size_t count_differing(const std::vector<float>& got, const std::vector<float>& expected) {
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        wrong += std::memcmp(&got[i], &expected[i], sizeof(float)) != 0 ? 1 : 0;
    return wrong;
}

}  // namespace

int main() try {
    const std::vector<dualrt::Device> devices = dualrt::devices();  // every backend's, CUDA first
    for (std::size_t d = 0; d < devices.size(); ++d)
        std::cout << "device " << d << ": " << dualrt::to_string(devices[d].backend()) << " '"
                  << devices[d].name() << "'\n";
    if (devices.size() < 2) {
        std::cout << "skipped: this sample needs two devices (without a GPU, run it with "
                     "POCL_DEVICES=\"pthread pthread\")\n";
        return 77;  // CTest's skip code for this sample
    }

    const std::uint32_t n = 1u << 22;
    const float s = 0.5f;
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> a(n), b(n);
    for (auto& v : a) v = dist(rng);
    for (auto& v : b) v = dist(rng);

    // 1. Device 0 computes t = a + s*b; device 1 copies t over and computes u = t + s*b.
    const dualrt::Device& first = devices[0];
    const dualrt::Device& second = devices[1];
    dualrt::Queue q0 = first.create_queue(), q1 = second.create_queue();
    auto a0 = first.alloc<float>(n), b0 = first.alloc<float>(n), t0 = first.alloc<float>(n);
    auto b1 = second.alloc<float>(n), t1 = second.alloc<float>(n), u1 = second.alloc<float>(n);
    q0.copy(a0, a);
    q0.copy(b0, b);
    q1.copy(b1, b);
    const dualrt::Event t_ready = q0.launch(first.kernel("triad"), {n}, {}, n, s, a0, b0, t0);
    // q1 waits for device 0's kernel: on the device where the pair allows it (two CUDA devices),
    // else by a host wait inside this call. Either way the copy below reads the finished t.
    q1.wait(t_ready);
    q1.copy(t1, t0);  // between devices: a peer copy, or staged through pinned host memory
    q1.launch(second.kernel("triad"), {n}, {}, n, s, t1, b1, u1);
    std::vector<float> u(n, std::nanf(""));
    q1.copy(u, u1, dualrt::Sync::blocking);

    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = std::fma(s, b[i], std::fma(s, b[i], a[i]));
    const std::size_t wrong_chain = count_differing(u, expected);
    std::cout << "device 0 -> device 1 (" << (first.peer_access(second) ? "peer" : "staged")
              << " copy): " << (wrong_chain == 0 ? "equal to the host's bit for bit"
                                                 : std::to_string(wrong_chain) + " elements wrong")
              << "\n";

    // 2. One Pipeline over every device: c = a + s*b, each chunk on whichever device takes it.
    // Kernels belong to one device, so the compute function picks the chunk's device's kernel.
    dualrt::Pipeline pipeline(devices);
    std::vector<dualrt::Kernel> triads;
    for (const auto& device : devices) triads.push_back(device.kernel("triad"));
    std::vector<float> c(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = std::fma(s, b[i], a[i]);
    dualrt::PipelineReport report;
    std::size_t wrong_pipeline = 0;
    // The first runs measure each device's rate, and whether the devices together beat the
    // fastest alone (they share the host); later runs deal by what was measured.
    for (int run = 0; run < 4; ++run) {
        std::fill(c.begin(), c.end(), std::nanf(""));
        report = pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), [&](auto& chunk) {
            auto [da, db] = chunk.inputs;
            auto [dc] = chunk.outputs;
            chunk.queue.launch(triads[chunk.device_index], {chunk.size()}, {},
                               std::uint32_t(chunk.size()), s, da, db, dc);
        });
        wrong_pipeline += count_differing(c, expected);
        std::cout << "run " << run << ": " << report.measured_ms << " ms, chunks per device:";
        for (const auto& row : report.devices) std::cout << " " << row.chunks;
        std::cout << "\n";
    }
    std::cout << "the last run in full:\n" << report.summary();
    std::cout << "Pipeline over " << devices.size() << " devices, every run: "
              << (wrong_pipeline == 0 ? "equal to the host's bit for bit"
                                      : std::to_string(wrong_pipeline) + " elements wrong")
              << "\n";
    return wrong_chain == 0 && wrong_pipeline == 0 ? 0 : 1;
} catch (const dualrt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
