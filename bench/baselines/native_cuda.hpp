// The plain CUDA driver API baseline: what a careful CUDA programmer writes by hand, with its
// own streams, events and memory on the device (and primary context) dualrt selected. Internal
// to libdualrt_native_cuda.so.
#pragma once

#include "native_baseline.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dualrt::bench::cuda {

// Throws dualrt::Error naming the call and cuGetErrorName's name for any result but success.
void check(CUresult result, const char* call, const std::string& context = {});
#define NATIVE_CU(call) ::dualrt::bench::cuda::check((call), #call)

// Makes a context current for one scope and restores the previous one (cuCtxPushCurrent/Pop).
class Current {
public:
    explicit Current(CUcontext context);
    ~Current();
    Current(const Current&) = delete;
    Current& operator=(const Current&) = delete;
};

// RAII owners of driver objects; each is made and destroyed with the context current.
class DeviceMemory {
public:
    explicit DeviceMemory(std::size_t bytes);
    ~DeviceMemory();
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    CUdeviceptr get() const { return pointer_; }

private:
    CUdeviceptr pointer_ = 0;
};

class PinnedMemory {
public:
    explicit PinnedMemory(std::size_t bytes);
    ~PinnedMemory();
    PinnedMemory(const PinnedMemory&) = delete;
    PinnedMemory& operator=(const PinnedMemory&) = delete;
    unsigned char* get() const { return static_cast<unsigned char*>(pointer_); }

private:
    void* pointer_ = nullptr;
};

class Stream {
public:
    Stream();
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    CUstream get() const { return stream_; }

private:
    CUstream stream_ = nullptr;
};

class TimingEvent {
public:
    explicit TimingEvent(bool timed = true);
    ~TimingEvent();
    TimingEvent(const TimingEvent&) = delete;
    TimingEvent& operator=(const TimingEvent&) = delete;
    TimingEvent(TimingEvent&& other) noexcept : event_(other.event_) { other.event_ = nullptr; }
    CUevent get() const { return event_; }

private:
    CUevent event_ = nullptr;
};

// Milliseconds between two recorded events, after waiting for the later one.
float elapsed_ms(const TimingEvent& start, const TimingEvent& stop);

// Host memory of either kind. Pageable memory is a std::vector, whose value-initialization
// touches every page before any timing, as an application's data would be.
class HostBlock {
public:
    HostBlock(HostMemory kind, std::size_t bytes);
    unsigned char* data() const { return data_; }

private:
    std::unique_ptr<PinnedMemory> pinned_;
    std::vector<unsigned char> pageable_;
    unsigned char* data_ = nullptr;
};

class NativeCuda final : public NativeBaseline {
public:
    NativeCuda(CUdevice device, CUcontext context, CUfunction empty, CUfunction busy,
               CUfunction triad, CUfunction stencil, CUfunction jacobi);
    ~NativeCuda() override;

    std::string describe() const override;
    double copy_ms(Direction direction, HostMemory host, std::size_t bytes,
                   int repetitions) override;
    LaunchCost launch_cost(int launches, int repetitions) override;
    double pipeline_ms(std::size_t elements, unsigned iterations, int chunks, int queues,
                       int repetitions) override;
    StreamTiming stream_triad(HostMemory host, const StreamJob& job) override;
    double stencil_ms(const StencilJob& job) override;  // native_cuda_stencil.cpp
    ReplayCost replay_cost(int launches, int repetitions) override;  // native_cuda_replay.cpp
    ReplayCost jacobi_replay_cost(const JacobiJob& job) override;      // native_cuda_replay.cpp
    double peer_copy_ms(const Device& peer, bool outwards, std::size_t bytes,
                        int repetitions) override;  // native_cuda_peer.cpp

private:
    CUdevice device_;
    CUcontext context_;
    CUfunction empty_;
    CUfunction busy_;
    CUfunction triad_;
    CUfunction stencil_;
    CUfunction jacobi_;
    // launch_cost's stream, made on its first call and kept, as dualrt's launch_cost keeps its
    // queues and the OpenCL baseline its own: launches on one stream over all rounds.
    std::unique_ptr<Stream> launch_stream_;
    std::uint32_t seed_ = 1;  // of the self-check's random bytes: other data on every call
};

}  // namespace dualrt::bench::cuda
