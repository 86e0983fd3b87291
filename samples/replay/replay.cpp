// replay: record the 100 steps of a small Jacobi solver once, replay them as one unit.
//
// A time step of a small grid is a few microseconds of device work and about as much host time
// to enqueue: launched one by one, the host's enqueues set the pace. Recorded once (CUDA graphs,
// OpenCL command buffers, or dualrt's prepared command list: DeviceInfo::recording), the steps
// are replayed with one enqueue. The replay must give the same bits as the plain launches.
#include <dualrt/dualrt.hpp>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

namespace {

constexpr std::uint32_t width = 256, height = 256;
constexpr int steps = 100;  // Jacobi sweeps per recording (a ping-pong of two grids)

// `steps` sweeps from `a` into `b` and back, so the result is in `a` again.
void sweeps(dualrt::Queue& queue, const dualrt::Kernel& jacobi, dualrt::Buffer<float>& a,
            dualrt::Buffer<float>& b) {
    const dualrt::Range interior{width, height - 2};  // rows 0 and height - 1 stay fixed
    for (int step = 0; step < steps; step += 2) {
        queue.launch(jacobi, interior, {}, a, b, width, 1u, height - 2);
        queue.launch(jacobi, interior, {}, b, a, width, 1u, height - 2);
    }
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

}  // namespace

int main() try {
    dualrt::Device device = dualrt::select();
    dualrt::Queue queue = device.create_queue();
    const dualrt::Kernel jacobi = device.kernel("jacobi_rows");
    std::cout << "replay on " << device.info().name << ", recording as a "
              << dualrt::to_string(device.info().recording) << "\n";

    std::vector<float> grid(width * height);
    std::mt19937 random(42);
    std::uniform_real_distribution<float> temperature(0.0f, 100.0f);
    for (float& value : grid) value = temperature(random);

    // Plain: every sweep enqueued by the host.
    auto a = device.alloc<float>(grid.size()), b = device.alloc<float>(grid.size());
    queue.copy(a, grid);
    queue.copy(b, grid);
    auto start = std::chrono::steady_clock::now();
    sweeps(queue, jacobi, a, b);
    queue.finish();
    const double plain_ms = milliseconds_since(start);
    std::vector<float> plain(grid.size());
    queue.copy(plain, a, dualrt::Sync::blocking);

    // Recorded once on fresh grids, then replayed: the same sweeps, one enqueue.
    auto c = device.alloc<float>(grid.size()), d = device.alloc<float>(grid.size());
    queue.begin_recording();
    sweeps(queue, jacobi, c, d);
    const dualrt::Recording recording = queue.end_recording();
    queue.copy(c, grid);
    queue.copy(d, grid, dualrt::Sync::blocking);
    start = std::chrono::steady_clock::now();
    queue.replay(recording).wait();
    const double replay_ms = milliseconds_since(start);
    std::vector<float> replayed(grid.size());
    queue.copy(replayed, c, dualrt::Sync::blocking);

    std::size_t differing = 0;
    for (std::size_t i = 0; i < grid.size(); ++i) differing += plain[i] != replayed[i] ? 1 : 0;
    std::cout << steps << " sweeps of a " << width << " x " << height << " grid ("
              << recording.commands() << " recorded launches): plain " << plain_ms
              << " ms, replayed " << replay_ms << " ms (first run of each, host clock)\n";
    if (differing != 0) {
        std::cerr << "error: " << differing << " grid points differ between the replay and the "
                  << "plain launches\n";
        return 1;
    }
    std::cout << "the replay matches the plain launches bit for bit\n";
    return 0;
} catch (const dualrt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
