// zero_copy: host memory that kernels read and write in place, with no copy (MappedBuffer). The
// memory belongs to the host or to the device in turn: the host writes the inputs during its
// turn, a kernel works on the memory itself, and the host's next turn reads the result.
// docs/zero-copy.md says when this pays: always on devices that share the host's memory (CPU
// devices, integrated GPUs), on a discrete GPU only for data a kernel touches once.
#include <dualrt/dualrt.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

int main() try {
    const std::uint32_t n = 1u << 22;
    const float a = 2.5f;

    dualrt::Device device = dualrt::select();
    const dualrt::DeviceInfo& info = device.info();
    std::cout << "zero_copy on " << dualrt::to_string(device.backend()) << " '" << device.name()
              << "': shares host memory: " << (info.shares_host_memory ? "yes" : "no")
              << ", zero-copy worthwhile: " << (info.zero_copy_worthwhile() ? "yes" : "no")
              << "\n";
    if (!info.can_map_host_memory) {
        std::cout << "skipped: this device cannot map host memory\n";
        return 77;  // CTest's skip code for this sample
    }

    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> x_in(n), y_in(n);
    for (auto& v : x_in) v = dist(rng);
    for (auto& v : y_in) v = dist(rng);

    dualrt::Queue queue = device.create_queue();
    dualrt::MappedBuffer<float> x = device.alloc_mapped<float>(n);
    dualrt::MappedBuffer<float> y = device.alloc_mapped<float>(n);
    {
        // The host's turn: it lasts as long as these HostAccess objects do. Their pointers are
        // valid only until then (OpenCL maps the memory anew for each turn).
        dualrt::HostAccess<float> hx = x.host(queue), hy = y.host(queue);
        std::copy(x_in.begin(), x_in.end(), hx.begin());
        std::copy(y_in.begin(), y_in.end(), hy.begin());

        // While the host holds the memory, commands on it are refused before anything runs,
        // rather than racing with the host's writes.
        try {
            queue.launch(device.kernel("saxpy"), {n}, {}, n, a, x.device_view(), y.device_view());
            std::cerr << "error: a launch on memory the host holds was not refused\n";
            return 1;
        } catch (const dualrt::Error& e) {
            if (e.errc() != dualrt::Errc::invalid_argument) throw;
            std::cout << "a launch during the host's turn is refused, as it should be\n";
        }
    }  // the turn ends: the host's writes are visible to every command enqueued from now on

    // y = a*x + y, reading and writing the mapped memory itself: no copy in either direction.
    const dualrt::Event start = queue.record();
    queue.launch(device.kernel("saxpy"), {n}, {}, n, a, x.device_view(), y.device_view());
    const dualrt::Event done = queue.record();
    const double kernel_ms = dualrt::Event::elapsed_ms(start, done);

    // The host's next turn waits for the kernel (the work enqueued on `queue`), then reads y.
    const dualrt::HostAccess<float> result = y.host(queue);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        // The device may contract a*x + y into one fma or not: allow the last bits either way.
        const float expected = a * x_in[i] + y_in[i];
        if (std::fabs(result[i] - expected) > 1e-6f * (1.0f + std::fabs(expected))) ++wrong;
    }
    std::cout << "saxpy of " << n << " floats in mapped host memory: " << kernel_ms << " ms, "
              << (wrong == 0 ? "verified on the host" : std::to_string(wrong) + " wrong results")
              << "\n";
    return wrong == 0 ? 0 : 1;
} catch (const dualrt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
