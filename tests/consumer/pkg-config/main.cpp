// A user's program built with nothing but `pkg-config --cflags --libs dualrt`: it compiles its
// kernel from source at run time (Device::load_sources, the way without CMake) and checks it on
// every device of every backend present. Exit 0: passed; 1: failed; 77: no device at all.
#include <dualrt/dualrt.hpp>

#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

const char* const opencl_source = R"(
__kernel void pkgconfig_square_add(uint n, int addend, __global const int* in, __global int* out) {
    const size_t i = get_global_id(0);
    if (i < n) out[i] = in[i] * in[i] + addend;
}
)";

const char* const cuda_source = R"(
#include "dualrt_kernel.cuh"
extern "C" __global__ void pkgconfig_square_add(uint n, int addend, const int* in, int* out) {
    const size_t i = get_global_id(0);
    if (i < n) out[i] = in[i] * in[i] + addend;
}
)";

}  // namespace

int main() try {
    const auto all = dualrt::devices();
    if (all.empty()) {
        std::cout << "SKIPPED: no device of any backend (see dualrt-info)\n";
        return 77;
    }
    std::mt19937 rng(std::random_device{}());
    std::uniform_int_distribution<int> dist(-1000, 1000);
    int failures = 0;
    for (const dualrt::Device& device : all) {
        device.load_sources({"pkgconfig_consumer", opencl_source, cuda_source});
        const std::uint32_t n = 70001;
        const int addend = 17;
        std::vector<int> in(n);
        for (auto& v : in) v = dist(rng);
        dualrt::Queue queue = device.create_queue();
        auto d_in = device.alloc<int>(n);
        auto d_out = device.alloc<int>(n);
        queue.copy(d_in, in);
        queue.fill(d_out, -123456789);  // poison
        queue.launch(device.kernel("pkgconfig_square_add"), {n}, {}, n, addend, d_in, d_out);
        std::vector<int> out(n);
        queue.copy(out, d_out, dualrt::Sync::blocking);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i) wrong += out[i] != in[i] * in[i] + addend;
        const std::string where = std::string(dualrt::to_string(device.backend())) + " '" +
                                  device.name() + "'";
        if (wrong != 0) {
            std::cerr << "FAILED on " << where << ": " << wrong << " wrong results\n";
            ++failures;
        } else {
            std::cout << "checked " << where << "\n";
        }
    }
    return failures == 0 ? 0 : 1;
} catch (const dualrt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
}
