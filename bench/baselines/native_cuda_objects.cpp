// Error checks and the RAII owners of driver objects used by the CUDA baseline.
#include "native_cuda.hpp"

#include <dualrt/error.hpp>

#include <cstdint>
#include <utility>

namespace dualrt::bench::cuda {

void check(CUresult result, const char* call, const std::string& context) {
    if (result == CUDA_SUCCESS) return;
    const char* name = nullptr;
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
    const char* text = nullptr;
    if (cuGetErrorString(result, &text) != CUDA_SUCCESS) text = nullptr;
    ErrorInfo info;
    info.errc = result == CUDA_ERROR_OUT_OF_MEMORY ? Errc::out_of_memory : Errc::backend_failure;
    info.backend = "cuda";
    info.call = call;
    info.code = static_cast<std::int64_t>(result);
    info.code_name = name;
    info.detail = text != nullptr ? text : "";
    info.context = context.empty() ? "native CUDA baseline" : "native CUDA baseline: " + context;
    throw Error(std::move(info));
}

// The destructors below cannot throw and have nobody to tell: a failure there would already have
// shown in the synchronizing call that ended the work, so their results are deliberately dropped.

Current::Current(CUcontext context) { NATIVE_CU(cuCtxPushCurrent(context)); }

Current::~Current() {
    CUcontext popped = nullptr;
    (void)cuCtxPopCurrent(&popped);
}

DeviceMemory::DeviceMemory(std::size_t bytes) { NATIVE_CU(cuMemAlloc(&pointer_, bytes)); }

DeviceMemory::~DeviceMemory() { (void)cuMemFree(pointer_); }

// Flag 0: portable to no other context, not write-combined; the plain page-locked memory a CUDA
// program copies from (write-combined memory would be slow to read back on the host).
PinnedMemory::PinnedMemory(std::size_t bytes) { NATIVE_CU(cuMemHostAlloc(&pointer_, bytes, 0)); }

PinnedMemory::~PinnedMemory() { (void)cuMemFreeHost(pointer_); }

// Non-blocking: no implicit synchronization with the legacy default stream, like dualrt's.
Stream::Stream() { NATIVE_CU(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING)); }

Stream::~Stream() { (void)cuStreamDestroy(stream_); }

TimingEvent::TimingEvent(bool timed) {
    NATIVE_CU(cuEventCreate(&event_, timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING));
}

TimingEvent::~TimingEvent() {
    if (event_ != nullptr) (void)cuEventDestroy(event_);
}

HostBlock::HostBlock(HostMemory kind, std::size_t bytes) {
    if (kind == HostMemory::pinned) {
        pinned_ = std::make_unique<PinnedMemory>(bytes);
        data_ = pinned_->get();
    } else {
        pageable_.assign(bytes, 0);
        data_ = pageable_.data();
    }
}

float elapsed_ms(const TimingEvent& start, const TimingEvent& stop) {
    NATIVE_CU(cuEventSynchronize(stop.get()));
    float ms = 0.0f;
    NATIVE_CU(cuEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

}  // namespace dualrt::bench::cuda
