// Copy + kernel against zero-copy, for a kernel that reads its input once.
#include "zero_copy.hpp"

#include "csv.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>

namespace dualrt::samples::bandwidth {
namespace {

constexpr int warmup_runs = 2;

enum class Path { copy_then_kernel, zero_copy, kernel_alone };

const char* to_string(Path path) {
    switch (path) {
    case Path::copy_then_kernel: return "copy + kernel";
    case Path::zero_copy: return "zero-copy";
    case Path::kernel_alone: return "kernel alone (input on device)";
    }
    return "?";
}

[[noreturn]] void fail(Errc errc, const std::string& call, const std::string& detail) {
    ErrorInfo info;
    info.errc = errc;
    info.backend = "dualrt";
    info.call = call;
    info.detail = detail;
    throw Error(std::move(info));
}

// Everything the three paths use, made once.
struct Setup {
    Queue queue;
    Kernel saxpy;
    std::uint32_t n = 0;
    float a = 0.5f;
    std::vector<float> x;  // the input, on the host, for the reference
    HostBuffer<float> pinned_x;
    MappedBuffer<float> mapped_x;  // empty when the device cannot map host memory
    Buffer<float> device_x;
    Buffer<float> y;
};

// Enqueues one run of `path` on the queue.
void enqueue(Setup& s, Path path) {
    switch (path) {
    case Path::copy_then_kernel:
        s.queue.copy(s.device_x, s.pinned_x);
        s.queue.launch(s.saxpy, s.n, Range{}, s.n, s.a, s.device_x, s.y);
        break;
    case Path::zero_copy:
        s.queue.launch(s.saxpy, s.n, Range{}, s.n, s.a, s.mapped_x.device_view(), s.y);
        break;
    case Path::kernel_alone:
        s.queue.launch(s.saxpy, s.n, Range{}, s.n, s.a, s.device_x, s.y);
        break;
    }
}

// One run timed with events. For zero-copy the host takes its turn first, as a program does to
// write the input; the turn ends inside the timed span (see the header).
double time_once(Setup& s, Path path) {
    HostAccess<float> turn;
    if (path == Path::zero_copy) turn = s.mapped_x.host(s.queue);
    const Event start = s.queue.record();
    turn.release();  // no-op on the other paths
    enqueue(s, path);
    const Event stop = s.queue.record();
    return Event::elapsed_ms(start, stop);
}

double median_ms(Setup& s, Path path, int repetitions) {
    for (int i = 0; i < warmup_runs; ++i) time_once(s, path);
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(repetitions));
    for (int i = 0; i < repetitions; ++i) times.push_back(time_once(s, path));
    const auto middle = times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2);
    std::nth_element(times.begin(), middle, times.end());
    return *middle;
}

// Runs `path` once on a fresh y and compares y with a*x + y computed here; fused and unfused
// results are both right (devices may contract to an fma).
void check(Setup& s, Path path, std::mt19937& engine) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> y(s.n);
    for (auto& v : y) v = dist(engine);
    s.queue.copy(s.y, y);
    enqueue(s, path);
    std::vector<float> out(s.n, std::numeric_limits<float>::quiet_NaN());
    s.queue.copy(out, s.y, Sync::blocking);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const float product = s.a * s.x[i];
        if (out[i] == product + y[i] || out[i] == std::fma(s.a, s.x[i], y[i])) continue;
        fail(Errc::backend_failure, "zero-copy check",
             std::string(to_string(path)) + " computed y[" + std::to_string(i) +
                 "] = " + std::to_string(out[i]) + ", expected " +
                 std::to_string(product + y[i]) + " (a wrong result on " +
                 to_string(s.queue.device().backend()) + " device '" + s.queue.device().name() +
                 "')");
    }
}

std::vector<std::string> row(Path path, std::size_t bytes, double ms, double baseline_ms) {
    const double gbps = static_cast<double>(bytes) / (ms * 1e6);
    return {to_string(path), std::to_string(bytes), fixed(ms, 4), fixed(gbps, 2),
            fixed(baseline_ms / ms, 3)};
}

}  // namespace

std::vector<std::string> zero_copy_header() {
    return {"path", "bytes", "time ms", "GB/s", "vs copy+kernel"};
}

std::vector<std::vector<std::string>> zero_copy_rows(const Device& device, std::size_t bytes,
                                                     int repetitions) {
    const std::size_t n = bytes / sizeof(float);
    if (n == 0 || n > std::numeric_limits<std::uint32_t>::max())
        fail(Errc::invalid_argument, "zero_copy_rows",
             std::to_string(bytes) + " bytes hold " + std::to_string(n) +
                 " floats; the zero-copy measurement needs 1 to 2^32 - 1 of them (saxpy counts "
                 "in 32 bits)");
    if (repetitions < 1)
        fail(Errc::invalid_argument, "zero_copy_rows",
             "repetitions is " + std::to_string(repetitions) + "; expected at least 1");
    const std::size_t input_bytes = n * sizeof(float);
    const bool can_map = device.info().can_map_host_memory;

    Setup s;
    s.queue = device.create_queue();
    s.saxpy = device.kernel("saxpy");
    s.n = static_cast<std::uint32_t>(n);
    std::mt19937 engine(20261121u);  // fixed: the same data every run
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    s.x.resize(n);
    for (auto& v : s.x) v = dist(engine);
    s.pinned_x = device.alloc_host<float>(n);
    std::copy(s.x.begin(), s.x.end(), s.pinned_x.begin());
    s.device_x = device.alloc<float>(n);
    s.y = device.alloc<float>(n);
    if (can_map) {
        s.mapped_x = device.alloc_mapped<float>(n);
        auto host = s.mapped_x.host(s.queue);
        std::copy(s.x.begin(), s.x.end(), host.begin());
    }

    // copy + kernel first: it also leaves x in device memory for kernel alone.
    check(s, Path::copy_then_kernel, engine);
    check(s, Path::kernel_alone, engine);
    if (can_map) check(s, Path::zero_copy, engine);

    const double baseline = median_ms(s, Path::copy_then_kernel, repetitions);
    std::vector<std::vector<std::string>> rows;
    rows.push_back(row(Path::copy_then_kernel, input_bytes, baseline, baseline));
    if (can_map) {
        rows.push_back(row(Path::zero_copy, input_bytes,
                           median_ms(s, Path::zero_copy, repetitions), baseline));
    } else {
        rows.push_back({to_string(Path::zero_copy), std::to_string(input_bytes), "-", "-",
                        "unavailable: the device cannot map host memory"});
    }
    rows.push_back(row(Path::kernel_alone, input_bytes,
                       median_ms(s, Path::kernel_alone, repetitions), baseline));
    return rows;
}

}  // namespace dualrt::samples::bandwidth
