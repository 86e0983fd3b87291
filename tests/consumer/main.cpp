// A user's program against the installed dualrt: its own kernel (dualrt_add_kernels) and a
// built-in one, on every device of every backend present, checked against the host; and the
// errors a clash of names gives. Exit 0: all passed; 1: a check failed; 77: no device at all.
#include <dualrt/dualrt.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const std::string& what, const dualrt::Device& device) {
    if (ok) return;
    ++failures;
    std::cerr << "FAILED on " << dualrt::to_string(device.backend()) << " '" << device.name()
              << "': " << what << "\n";
}

std::vector<float> random_floats(std::size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> values(n);
    for (auto& v : values) v = dist(rng);
    return values;
}

// The project's own kernel: out[i] = factor * in[n-1-i], over a size no work-group divides.
void run_own_kernel(const dualrt::Device& device, std::mt19937& rng) {
    const std::uint32_t n = 100003;
    const float factor = -1.75f;
    const std::vector<float> in = random_floats(n, rng);
    dualrt::Queue queue = device.create_queue();
    auto d_in = device.alloc<float>(n);
    auto d_out = device.alloc<float>(n);
    queue.copy(d_in, in);
    queue.fill(d_out, std::nanf(""));  // poison: an element the kernel misses stays NaN
    queue.launch(device.kernel("consumer_reverse_scale"), {n}, {}, n, factor, d_in, d_out);
    std::vector<float> out(n);
    queue.copy(out, d_out, dualrt::Sync::blocking);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!(out[i] == factor * in[n - 1 - i])) ++wrong;
    }
    check(wrong == 0, std::to_string(wrong) + " wrong results of consumer_reverse_scale", device);
}

// A built-in kernel: the installed backend module was found and embeds its kernels.
void run_builtin_kernel(const dualrt::Device& device, std::mt19937& rng) {
    const std::uint32_t n = 4099;
    const float a = 0.5f;
    const std::vector<float> x = random_floats(n, rng);
    const std::vector<float> y = random_floats(n, rng);
    dualrt::Queue queue = device.create_queue();
    auto dx = device.alloc<float>(n);
    auto dy = device.alloc<float>(n);
    queue.copy(dx, x);
    queue.copy(dy, y);
    queue.launch(device.kernel("saxpy"), {n}, {}, n, a, dx, dy);
    std::vector<float> result(n);
    queue.copy(result, dy, dualrt::Sync::blocking);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float expected = a * x[i] + y[i];
        if (std::fabs(result[i] - expected) > 1e-6f * (1.0f + std::fabs(expected))) ++wrong;
    }
    check(wrong == 0, std::to_string(wrong) + " wrong results of the built-in saxpy", device);
}

// A source loaded at run time may not reuse the name of the project's embedded kernel, and an
// unknown name lists the project's kernels among the known ones.
void check_name_errors(const dualrt::Device& device) {
    dualrt::KernelSource source;
    source.name = "duplicate";
    source.opencl = "__kernel void consumer_reverse_scale(uint n) {}\n";
    source.cuda = "extern \"C\" __global__ void consumer_reverse_scale(unsigned n) {}\n";
    try {
        device.load_sources(source);
        check(false, "load_sources accepted a second consumer_reverse_scale", device);
    } catch (const dualrt::Error& e) {
        const std::string message = e.what();
        check(e.errc() == dualrt::Errc::invalid_argument &&
                  message.find("target 'consumer'") != std::string::npos,
              "the duplicate kernel's error does not name target 'consumer': " + message, device);
    }
    try {
        device.kernel("no_such_kernel");
        check(false, "kernel(\"no_such_kernel\") did not throw", device);
    } catch (const dualrt::Error& e) {
        const std::string message = e.what();
        check(e.errc() == dualrt::Errc::not_found &&
                  message.find("consumer_reverse_scale") != std::string::npos,
              "the unknown-kernel error does not list consumer_reverse_scale: " + message,
              device);
    }
}

}  // namespace

int main() try {
    std::mt19937 rng(std::random_device{}());
    const std::vector<dualrt::Device> all = dualrt::devices();
    if (all.empty()) {
        std::cout << "SKIPPED: no device of any backend (see dualrt-info)\n";
        return 77;
    }
    for (const dualrt::Device& device : all) {
        run_own_kernel(device, rng);
        run_builtin_kernel(device, rng);
        check_name_errors(device);
        std::cout << "checked " << dualrt::to_string(device.backend()) << " '" << device.name()
                  << "'\n";
    }
    std::cout << all.size() << " device(s), " << failures << " failure(s)\n";
    return failures == 0 ? 0 : 1;
} catch (const dualrt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
