// The vendor baseline on a CUDA device: CUB's DeviceReduce::Sum and cuBLAS SGEMM through the CUDA
// runtime API, on the device (and primary context) dualrt selected. Internal to
// libdualrt_vendor_cuda.so: the error checks and RAII owners of runtime and cuBLAS objects here,
// the class in vendor_cuda.cpp, reduce_sum in vendor_reduce.cpp, sgemm in cublas_sgemm.cpp.
#pragma once

#include "vendor_baseline.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>

namespace dualrt::bench::vendor {

// Throw dualrt::Error for anything but success, naming the call, the code's name and text, and
// `context` (the device and the sizes worked on). Errors that mean the library cannot run here at
// all (no device, a driver older than the runtime) are Errc::unavailable, so that the loader can
// turn them into a "why not" instead of a failure.
void check(cudaError_t result, const char* call, const std::string& context);
void check(cublasStatus_t status, const char* call, const std::string& context);
#define VENDOR_CHECK(call, context) ::dualrt::bench::vendor::check((call), #call, (context))

// Errc::invalid_argument for a bad argument of a VendorBaseline call.
[[noreturn]] void invalid_argument(const char* call, const std::string& detail);

// Errc::invalid_argument unless warmup >= 0 and repetitions >= 1.
void check_runs(const char* call, int warmup, int repetitions);

// `count` elements of `size` bytes, or Errc::invalid_argument naming `what` when that overflows.
std::size_t byte_count(const char* call, const char* what, std::size_t count, std::size_t size);

// RAII owners; each is made with the device current (VendorCuda::select) and frees what it holds
// on every path, errors included.
class DeviceMemory {
public:
    DeviceMemory(std::size_t bytes, const std::string& context);
    ~DeviceMemory();
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    void* get() const { return pointer_; }
    template <typename T>
    T* as() const {
        return static_cast<T*>(pointer_);
    }

private:
    void* pointer_ = nullptr;
};

// A stream of its own that does not synchronize with the legacy default stream, so nothing else
// in the process (dualrt's queues included) slips into a timing.
class Stream {
public:
    Stream();
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

class TimingEvent {
public:
    TimingEvent();
    ~TimingEvent();
    TimingEvent(const TimingEvent&) = delete;
    TimingEvent& operator=(const TimingEvent&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

// A cuBLAS handle bound to `stream`, in CUBLAS_PEDANTIC_MATH (cublas_sgemm.cpp says why).
class CublasHandle {
public:
    explicit CublasHandle(cudaStream_t stream);
    ~CublasHandle();
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    cublasHandle_t get() const { return handle_; }

private:
    cublasHandle_t handle_ = nullptr;
};

// Makes `ordinal` the calling thread's current device and checks that it is the device dualrt
// described (its PCI bus id, when dualrt knows it). A member of VendorCuda ahead of the objects it
// makes, so they are made on the right device.
class SelectedDevice {
public:
    SelectedDevice(int ordinal, const std::string& pci_bus_id);
    int ordinal() const { return ordinal_; }

private:
    int ordinal_;
};

class VendorCuda final : public VendorBaseline {
public:
    VendorCuda(int ordinal, const std::string& pci_bus_id);
    ~VendorCuda() override;

    std::string describe() const override;
    VendorTiming reduce_sum(const float* host, std::size_t n, int warmup, int repetitions,
                            float& sum) override;
    VendorTiming reduce_sum(const std::int32_t* host, std::size_t n, int warmup,
                            int repetitions, std::int32_t& sum) override;
    VendorTiming sgemm(int m, int n, int k, const float* a, const float* b, float* c, int warmup,
                       int repetitions) override;

private:
    // cudaSetDevice on every call: the runtime's current device is per thread, and a benchmark may
    // call from another thread or use another device in between. dualrt pushes and pops its own
    // context around each of its calls, so this does not disturb it.
    void select() const;
    // "CUDA device 0 'NVIDIA H200'" plus `what`, for error contexts.
    std::string context(const std::string& what) const;
    template <typename T>
    VendorTiming reduce(const T* host, std::size_t n, int warmup, int repetitions, T& sum,
                        const char* type);
    // Runs `enqueue` (one call, enqueued on stream_) `warmup` times untimed, then `repetitions`
    // times between start_ and stop_, waiting for each; median, min and max of the event times.
    VendorTiming time_calls(int warmup, int repetitions, const std::function<void()>& enqueue,
                            const std::string& context);

    SelectedDevice device_;
    Stream stream_;
    TimingEvent start_;
    TimingEvent stop_;
    CublasHandle cublas_;
};

}  // namespace dualrt::bench::vendor
