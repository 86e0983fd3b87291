// The vendor.loader test: load_vendor_baseline on every device of every backend here.
//   - a device of another backend gets nullptr and a why_not saying it is not a CUDA device;
//   - a CUDA device gets the module where this build made it (argv[1], its path, must then exist),
//     whose sums and products must match a CPU reference, in strict fp32;
//   - a CUDA device in a build without the module gets nullptr and the build's reason.
//   - a stand-in CUDA device (stand_in_cuda_device.hpp) takes the loader through the module's
//     dlopen and creation on any machine, and must be refused with the reason.
// So it passes on a machine with no GPU (PoCL's device alone) and proves the GPU path where there
// is one.
#include "stand_in_cuda_device.hpp"
#include "vendor_baseline.hpp"

#include <dualrt/dualrt.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

using dualrt::bench::VendorBaseline;
using dualrt::bench::VendorTiming;

int checks = 0;
int failures = 0;

void expect(bool ok, const std::string& what) {
    ++checks;
    if (!ok) ++failures;
    std::cout << (ok ? "ok    " : "FAIL  ") << what << "\n";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

bool is_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

void expect_timing(const VendorTiming& t, int repetitions, const std::string& what) {
    expect(t.repetitions == repetitions && t.min_ms > 0.0 && t.min_ms <= t.median_ms &&
               t.median_ms <= t.max_ms,
           what + " timing: median " + std::to_string(t.median_ms) + " ms (" +
               std::to_string(t.min_ms) + " .. " + std::to_string(t.max_ms) + "), " +
               std::to_string(t.repetitions) + " runs");
}

// Multiples of 0.25 below 2^22: every partial sum is exact in fp32, whatever order CUB adds in.
void check_reduce(VendorBaseline& vendor) {
    for (std::size_t n : {std::size_t{1}, std::size_t{1000}, (std::size_t{1} << 20) + 3}) {
        std::vector<float> values(n);
        std::vector<std::int32_t> integers(n);
        double expected = 0.0;
        std::int64_t expected_integer = 0;
        for (std::size_t i = 0; i < n; ++i) {
            values[i] = static_cast<float>(i % 16) * 0.25f;
            integers[i] = static_cast<std::int32_t>(i % 1001) - 500;
            expected += values[i];
            expected_integer += integers[i];
        }
        float sum = -1.0f;
        const VendorTiming t = vendor.reduce_sum(values.data(), n, 1, 3, sum);
        expect(static_cast<double>(sum) == expected,
               "reduce_sum float n=" + std::to_string(n) + ": " + std::to_string(sum) +
                   ", expected " + std::to_string(expected));
        expect_timing(t, 3, "reduce_sum float n=" + std::to_string(n));
        std::int32_t integer_sum = -1;
        vendor.reduce_sum(integers.data(), n, 1, 3, integer_sum);
        expect(integer_sum == expected_integer,
               "reduce_sum int32 n=" + std::to_string(n) + ": " + std::to_string(integer_sum) +
                   ", expected " + std::to_string(expected_integer));
    }
}

// Values in [0.5, 1) with all 23 mantissa bits in use: fp32 stays within k * 2^-24 (3.2e-6 here)
// of the double reference, while TF32's 10-bit inputs would be off by about 1e-4.
void check_sgemm(VendorBaseline& vendor) {
    const int m = 37, n = 29, k = 53;  // all different, so swapped operands cannot pass
    std::uint32_t state = 12345u;
    const auto next = [&] {
        state = state * 1664525u + 1013904223u;
        return 0.5f + static_cast<float>(state >> 9) / static_cast<float>(1u << 24);
    };
    std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
    for (float& v : a) v = next();
    for (float& v : b) v = next();
    std::vector<float> c(static_cast<std::size_t>(m * n), -1.0f);
    const VendorTiming t = vendor.sgemm(m, n, k, a.data(), b.data(), c.data(), 1, 3);
    double worst = 0.0;
    for (int row = 0; row < m; ++row)
        for (int col = 0; col < n; ++col) {
            double expected = 0.0;
            for (int i = 0; i < k; ++i)
                expected += static_cast<double>(a[static_cast<std::size_t>(row * k + i)]) *
                            static_cast<double>(b[static_cast<std::size_t>(i * n + col)]);
            const double got = c[static_cast<std::size_t>(row * n + col)];
            worst = std::max(worst, std::fabs(got - expected) / expected);
        }
    expect(worst < 1e-5, "sgemm 37x29x53 row-major matches the CPU in fp32 (worst relative "
                         "error " + std::to_string(worst) + ")");
    expect_timing(t, 3, "sgemm");
}

void check_arguments(VendorBaseline& vendor) {
    const auto throws_invalid = [](auto&& call) {
        try {
            call();
        } catch (const dualrt::Error& error) {
            return error.errc() == dualrt::Errc::invalid_argument;
        }
        return false;
    };
    float sum = 0.0f, one = 1.0f;
    expect(throws_invalid([&] { vendor.reduce_sum(&one, 1, 0, 0, sum); }),
           "reduce_sum with 0 repetitions throws invalid_argument");
    expect(throws_invalid([&] { vendor.sgemm(0, 1, 1, &one, &one, &sum, 0, 1); }),
           "sgemm with m = 0 throws invalid_argument");
}

void check_cuda_device(VendorBaseline& vendor) {
    const std::string text = vendor.describe();
    expect(contains(text, "CUB ") && contains(text, "cuBLAS "), "describe(): " + text);
    check_reduce(vendor);
    check_sgemm(vendor);
    check_arguments(vendor);
}

// Every device dualrt has: CUDA devices get the module where the build made it, others a reason.
void check_devices(const std::vector<dualrt::Device>& devices, const std::string& module) {
    for (const dualrt::Device& device : devices) {
        const dualrt::DeviceInfo& info = device.info();
        const std::string label = std::string(dualrt::to_string(info.backend)) + " device " +
                                  std::to_string(info.index) + " '" + info.name + "'";
        std::string why_not;
        auto vendor = dualrt::bench::load_vendor_baseline(device, why_not);
        if (info.backend != dualrt::Backend::cuda) {
            expect(!vendor && contains(why_not, "is not a CUDA device"),
                   label + ": no vendor baseline, because " + why_not);
        } else if (module.empty()) {
            expect(!vendor && contains(why_not, "this build has no vendor baseline module"),
                   label + ": no vendor baseline, because " + why_not);
        } else {
            expect(vendor != nullptr, label + ": the vendor baseline loads" +
                                          (vendor ? "" : std::string(": ") + why_not));
            if (vendor) check_cuda_device(*vendor);
        }
    }
}

// The loader's CUDA path where no real CUDA device is needed: the stand-in is CUDA device 0 at a
// PCI address no GPU has.
void check_stand_in(const std::string& module) {
    const std::string label = "stand-in CUDA device";
    std::string why_not;
    try {
        auto vendor =
            dualrt::bench::load_vendor_baseline(vendor_test::stand_in_cuda_device(), why_not);
        if (module.empty())
            expect(!vendor && contains(why_not, "this build has no vendor baseline module"),
                   label + ": no vendor baseline, because " + why_not);
        else  // loaded and created, but the CUDA runtime cannot start here (no driver, no GPU)
            expect(!vendor && contains(why_not, "cudaSetDevice"),
                   label + ": the module loads and says the CUDA runtime cannot start: " +
                       why_not);
    } catch (const dualrt::Error& error) {
        // Where the runtime starts, its device 0 is not at the stand-in's PCI address.
        expect(!module.empty() && error.errc() == dualrt::Errc::invalid_argument &&
                   contains(error.what(), vendor_test::stand_in_pci_bus_id),
               label + ": the module refuses a device the runtime has elsewhere: " +
                   error.what());
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::string module = argc > 1 ? argv[1] : "";
    if (module.empty())
        std::cout << "note  this build made no vendor module (no nvcc, cuBLAS or CUB)\n";
    else
        expect(is_file(module), "the build made the vendor module " + module);

    try {
        const std::vector<dualrt::Device> devices = dualrt::devices();
        check_devices(devices, module);
        // Last, as it points DUALRT_PLUGIN_PATH at the module: without a driver the CUDA
        // backend's folder, where the loader would find it, is not among the folders searched.
        if (!module.empty()) {
            const char* before = std::getenv(dualrt::env_plugin_path);
            const std::string folder = module.substr(0, module.rfind('/'));
            ::setenv(dualrt::env_plugin_path,
                     (folder + (before ? std::string(":") + before : "")).c_str(), 1);
        }
        check_stand_in(module);
        if (devices.empty())
            std::cout << "note  no device of any backend here: only the stand-in was asked\n";
    } catch (const dualrt::Error& error) {
        expect(false, std::string("unexpected dualrt::Error: ") + error.what());
    }
    std::cout << "vendor.loader: " << checks << " checks, " << failures << " failures\n";
    return failures > 0 ? 1 : 0;
}
