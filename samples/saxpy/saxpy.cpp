// saxpy: the smallest complete dualrt program. y = a*x + y on the device DUALRT_BACKEND and
// DUALRT_DEVICE select, checked against the same sum on the host.
#include <dualrt/dualrt.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

int main() try {
    const std::uint32_t n = 1u << 24;
    const float a = 2.5f;
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x(n), y(n);
    for (auto& v : x) v = dist(rng);
    for (auto& v : y) v = dist(rng);

    dualrt::Device device = dualrt::select();
    dualrt::Queue queue = device.create_queue();
    dualrt::Kernel saxpy = device.kernel("saxpy");  // builds the program now, outside the timing
    auto dx = device.alloc<float>(n);
    auto dy = device.alloc<float>(n);
    queue.copy(dx, x);
    queue.copy(dy, y);
    auto start = queue.record();
    queue.launch(saxpy, {n}, {}, n, a, dx, dy);
    auto done = queue.record();
    std::vector<float> result(n);
    queue.copy(result, dy, dualrt::Sync::blocking);

    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float expected = a * x[i] + y[i];
        if (std::fabs(result[i] - expected) > 1e-6f * (1.0f + std::fabs(expected))) ++wrong;
    }
    std::cout << "saxpy of " << n << " floats on " << dualrt::to_string(device.backend()) << " '"
              << device.name() << "': " << dualrt::Event::elapsed_ms(start, done) << " ms, "
              << (wrong == 0 ? "verified on the host" : std::to_string(wrong) + " wrong results")
              << "\n";
    return wrong == 0 ? 0 : 1;
} catch (const dualrt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
