// VendorCuda: the device, stream, events and cuBLAS handle every call shares, the timing loop,
// describe(), and the module's entry point.
#include "cub_reduce.hpp"
#include "native_common.hpp"  // detail::median, as the native baselines take it
#include "vendor_cuda.hpp"
#include "vendor_module.hpp"

#include <algorithm>
#include <vector>

namespace dualrt::bench::vendor {

// Members are made in order: the device first, so that the stream, the events and the cuBLAS
// handle belong to it.
VendorCuda::VendorCuda(int ordinal, const std::string& pci_bus_id)
    : device_(ordinal, pci_bus_id), stream_(), start_(), stop_(), cublas_(stream_.get()) {}

// Made current again so the members, destroyed after this body, are freed on their device.
VendorCuda::~VendorCuda() { (void)cudaSetDevice(device_.ordinal()); }

void VendorCuda::select() const {
    check(cudaSetDevice(device_.ordinal()), "cudaSetDevice", context({}));
}

std::string VendorCuda::context(const std::string& what) const {
    return "CUDA device " + std::to_string(device_.ordinal()) + (what.empty() ? "" : ", ") + what;
}

std::string VendorCuda::describe() const {
    const std::string where = context("describe()");
    const CubVersion cub = cub_version();
    int major = 0, minor = 0, patch = 0;
    check(cublasGetProperty(MAJOR_VERSION, &major), "cublasGetProperty(MAJOR_VERSION)", where);
    check(cublasGetProperty(MINOR_VERSION, &minor), "cublasGetProperty(MINOR_VERSION)", where);
    check(cublasGetProperty(PATCH_LEVEL, &patch), "cublasGetProperty(PATCH_LEVEL)", where);
    cudaDeviceProp properties{};
    VENDOR_CHECK(cudaGetDeviceProperties(&properties, device_.ordinal()), where);
    // cuBLAS's version is the library loaded at run time; CUB's is the headers compiled in.
    return "CUB " + std::to_string(cub.major) + "." + std::to_string(cub.minor) + "." +
           std::to_string(cub.subminor) + " (CCCL), cuBLAS " + std::to_string(major) + "." +
           std::to_string(minor) + "." + std::to_string(patch) + " on device " +
           std::to_string(device_.ordinal()) + " '" + properties.name + "'";
}

VendorTiming VendorCuda::time_calls(int warmup, int repetitions,
                                    const std::function<void()>& enqueue,
                                    const std::string& context) {
    // Warm-up: CUB's and cuBLAS's first launches load their kernels, cuBLAS sets up its
    // workspace; waited for so that none of it overlaps the first timed call.
    for (int i = 0; i < warmup; ++i) enqueue();
    VENDOR_CHECK(cudaStreamSynchronize(stream_.get()), context);

    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(repetitions));
    for (int r = 0; r < repetitions; ++r) {
        VENDOR_CHECK(cudaEventRecord(start_.get(), stream_.get()), context);
        enqueue();
        VENDOR_CHECK(cudaEventRecord(stop_.get(), stream_.get()), context);
        VENDOR_CHECK(cudaEventSynchronize(stop_.get()), context);
        float ms = 0.0f;
        VENDOR_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()), context);
        times.push_back(ms);
    }
    VendorTiming timing;
    const auto [low, high] = std::minmax_element(times.begin(), times.end());
    timing.min_ms = *low;
    timing.max_ms = *high;
    timing.median_ms = detail::median(std::move(times));
    timing.repetitions = repetitions;
    return timing;
}

}  // namespace dualrt::bench::vendor

extern "C" __attribute__((visibility("default"))) dualrt::bench::VendorBaseline*
dualrt_vendor_baseline_create(const dualrt_vendor_device* device) {
    if (device == nullptr || device->api_version != DUALRT_VENDOR_API_VERSION) {
        // Errc::unavailable: the loader reports a stale module as "no vendor baseline here".
        dualrt::ErrorInfo info;
        info.errc = dualrt::Errc::unavailable;
        info.backend = "cuda";
        info.call = DUALRT_VENDOR_ENTRY_NAME;
        info.detail = "the loader speaks vendor baseline API version " +
                      std::to_string(device ? device->api_version : -1) +
                      ", this module version " + std::to_string(DUALRT_VENDOR_API_VERSION) +
                      " (rebuild the benchmarks)";
        throw dualrt::Error(std::move(info));
    }
    return new dualrt::bench::vendor::VendorCuda(device->ordinal,
                                                 device->pci_bus_id ? device->pci_bus_id : "");
}
