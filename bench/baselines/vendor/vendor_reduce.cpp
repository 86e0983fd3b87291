// VendorCuda::reduce_sum: cub::DeviceReduce::Sum (through cub_reduce.cu) on the input copied to
// the device once, with its temporary storage allocated once, outside the timing.
#include "cub_reduce.hpp"
#include "vendor_cuda.hpp"

namespace dualrt::bench::vendor {

template <typename T>
VendorTiming VendorCuda::reduce(const T* host, std::size_t n, int warmup, int repetitions, T& sum,
                                const char* type) {
    static constexpr const char* call = "VendorBaseline::reduce_sum";
    check_runs(call, warmup, repetitions);
    if (host == nullptr || n == 0) invalid_argument(call, "needs a host array of n >= 1 values");
    const std::size_t bytes = byte_count(call, "the input", n, sizeof(T));
    const std::string where = context("cub::DeviceReduce::Sum of " + std::to_string(n) + " " +
                                      type + " values (" + std::to_string(bytes) + " bytes)");
    select();

    DeviceMemory input(bytes, where);
    DeviceMemory output(sizeof(T), where);
    VENDOR_CHECK(cudaMemcpyAsync(input.get(), host, bytes, cudaMemcpyHostToDevice, stream_.get()),
                 where);
    // CUB's first phase: with no storage it only says how much it needs.
    std::size_t temp_bytes = 0;
    check(cub_device_sum(nullptr, temp_bytes, input.as<const T>(), output.as<T>(), n,
                         stream_.get()),
          "cub::DeviceReduce::Sum (temporary storage size)", where);
    // At least one byte: a null pointer would make every timed call a size query.
    DeviceMemory temp(temp_bytes > 0 ? temp_bytes : 1, where);
    VENDOR_CHECK(cudaStreamSynchronize(stream_.get()), where);

    const VendorTiming timing = time_calls(
        warmup, repetitions,
        [&] {
            check(cub_device_sum(temp.get(), temp_bytes, input.as<const T>(), output.as<T>(), n,
                                 stream_.get()),
                  "cub::DeviceReduce::Sum", where);
        },
        where);

    VENDOR_CHECK(cudaMemcpyAsync(&sum, output.get(), sizeof(T), cudaMemcpyDeviceToHost,
                                 stream_.get()),
                 where);
    VENDOR_CHECK(cudaStreamSynchronize(stream_.get()), where);
    return timing;
}

VendorTiming VendorCuda::reduce_sum(const float* host, std::size_t n, int warmup,
                                    int repetitions, float& sum) {
    return reduce(host, n, warmup, repetitions, sum, "float");
}

VendorTiming VendorCuda::reduce_sum(const std::int32_t* host, std::size_t n, int warmup,
                                    int repetitions, std::int32_t& sum) {
    return reduce(host, n, warmup, repetitions, sum, "int32");
}

}  // namespace dualrt::bench::vendor
