// The hand-written peer copy: cuMemcpyPeerAsync between the primary contexts of two CUDA
// devices, the way the CUDA programming guide writes it, for bandwidth --cross to compare
// dualrt's peer copies with.
#include "native_common.hpp"
#include "native_cuda.hpp"

#include <chrono>
#include <memory>
#include <vector>

namespace dualrt::bench::cuda {
namespace {

using Clock = std::chrono::steady_clock;

// Holds a device's primary context for one scope (the native baseline of the other device may
// not exist, so this module keeps its own reference).
class PrimaryContext {
public:
    explicit PrimaryContext(CUdevice device) : device_(device) {
        NATIVE_CU(cuDevicePrimaryCtxRetain(&context_, device_));
    }
    ~PrimaryContext() { (void)cuDevicePrimaryCtxRelease(device_); }
    PrimaryContext(const PrimaryContext&) = delete;
    PrimaryContext& operator=(const PrimaryContext&) = delete;
    CUcontext get() const { return context_; }

private:
    CUdevice device_;
    CUcontext context_ = nullptr;
};

// Device memory allocated and freed with `context` current (the two sides of a peer copy live
// in different contexts).
class MemoryIn {
public:
    MemoryIn(CUcontext context, std::size_t bytes) : context_(context) {
        Current current(context_);
        memory_ = std::make_unique<DeviceMemory>(bytes);
    }
    ~MemoryIn() {
        if (cuCtxPushCurrent(context_) != CUDA_SUCCESS) return;  // nothing to free it with
        memory_.reset();
        CUcontext popped = nullptr;
        (void)cuCtxPopCurrent(&popped);
    }
    MemoryIn(const MemoryIn&) = delete;
    MemoryIn& operator=(const MemoryIn&) = delete;
    CUdeviceptr get() const { return memory_->get(); }

private:
    CUcontext context_;
    std::unique_ptr<DeviceMemory> memory_;
};

// Lets the current context reach `peer`'s memory. Enabled for the process's life, like dualrt's
// own (whichever of the two enables it first, the other finds it already enabled).
void enable_peer_access(CUcontext peer) {
    const CUresult result = cuCtxEnablePeerAccess(peer, 0);
    if (result != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        check(result, "cuCtxEnablePeerAccess(peer, 0)");
}

}  // namespace

double NativeCuda::peer_copy_ms(const Device& peer, bool outwards, std::size_t bytes,
                                int repetitions) {
    detail::check_copy_arguments("cuda", bytes, repetitions);
    if (peer.backend() != Backend::cuda)
        detail::invalid_argument("cuda", "NativeBaseline::peer_copy_ms",
                                 "the peer must be a CUDA device, not " +
                                     std::string(to_string(peer.backend())) + " device '" +
                                     peer.name() + "'");
    const auto peer_device = static_cast<CUdevice>(peer.native_handle());
    if (peer_device == device_)
        detail::invalid_argument("cuda", "NativeBaseline::peer_copy_ms",
                                 "the peer is this device itself");
    PrimaryContext peer_context(peer_device);

    int reach_peer = 0, reached_by_peer = 0;
    NATIVE_CU(cuDeviceCanAccessPeer(&reach_peer, device_, peer_device));
    NATIVE_CU(cuDeviceCanAccessPeer(&reached_by_peer, peer_device, device_));
    const bool peer_access = reach_peer != 0 && reached_by_peer != 0;
    if (peer_access) {
        {
            Current current(peer_context.get());
            enable_peer_access(context_);
        }
        Current current(context_);
        enable_peer_access(peer_context.get());
    }

    // Memory on each side; the copy's stream is this device's.
    std::vector<unsigned char> sent(bytes), received(bytes, 0);
    detail::fill_pattern(sent.data(), bytes, seed_++);
    MemoryIn here(context_, bytes), there(peer_context.get(), bytes);
    const CUdeviceptr source = outwards ? here.get() : there.get();
    const CUdeviceptr target = outwards ? there.get() : here.get();
    const CUcontext source_context = outwards ? context_ : peer_context.get();
    const CUcontext target_context = outwards ? peer_context.get() : context_;
    Current current(context_);
    Stream stream;

    // Self-check: random bytes into the source, across, and back from the target.
    NATIVE_CU(cuMemcpyHtoD(source, sent.data(), bytes));
    NATIVE_CU(cuMemcpyHtoD(target, received.data(), bytes));  // zeros
    NATIVE_CU(cuMemcpyPeerAsync(target, target_context, source, source_context, bytes,
                                stream.get()));
    NATIVE_CU(cuStreamSynchronize(stream.get()));
    NATIVE_CU(cuMemcpyDtoH(received.data(), target, bytes));
    const std::string difference = detail::compare_bytes(sent.data(), received.data(), bytes);
    if (!difference.empty())
        detail::wrong_result("cuda", "the peer copy", difference);

    const auto once = [&]() -> double {
        const auto begin = Clock::now();
        NATIVE_CU(cuMemcpyPeerAsync(target, target_context, source, source_context, bytes,
                                    stream.get()));
        NATIVE_CU(cuStreamSynchronize(stream.get()));
        return std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
    };
    for (int i = 0; i < detail::warmup_runs; ++i) once();
    std::vector<double> times;
    for (int i = 0; i < repetitions; ++i) times.push_back(once());
    return detail::median(std::move(times));
}

}  // namespace dualrt::bench::cuda
