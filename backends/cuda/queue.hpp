// QueueImpl: a CUstream, for copies, fills and kernel launches.
#pragma once

#include "backend/backend.hpp"

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace dualrt::cuda {

class DeviceImpl;

// Owns one stream created with CU_STREAM_NON_BLOCKING, so it never synchronises with the legacy
// default stream that other code in the process may use. Every enqueue returns the EventImpl of
// its work (untimed); with Sync::blocking the call returns after the work completed.
// (DUALRT_SYNC is handled by the core for every backend.) Thread-safe: the driver accepts work
// for one stream from any thread, and cuLaunchKernel copies the arguments before returning.
class QueueImpl final : public backend::QueueImpl {
public:
    // Creates the stream (and retains the device's primary context on first use).
    explicit QueueImpl(std::shared_ptr<DeviceImpl> device);
    // cuStreamDestroy: returns at once; work still in the stream completes. Never throws.
    ~QueueImpl() override;
    QueueImpl(const QueueImpl&) = delete;
    QueueImpl& operator=(const QueueImpl&) = delete;

    const backend::DeviceImpl& device() const override;
    // From pageable memory the driver returns once it has staged the source, from pinned memory
    // at once; to pageable memory it returns when the copy is done.
    backend::EventPtr copy_to_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                     const void* src, std::size_t bytes, Sync sync) override;
    backend::EventPtr copy_to_host(void* dst, backend::BufferImpl& src, std::size_t src_offset,
                                   std::size_t bytes, Sync sync) override;
    backend::EventPtr copy_device(backend::BufferImpl& dst, std::size_t dst_offset,
                                  backend::BufferImpl& src, std::size_t src_offset,
                                  std::size_t bytes, Sync sync) override;
    backend::EventPtr fill(backend::BufferImpl& dst, std::size_t offset, std::size_t bytes,
                           const void* pattern, std::size_t pattern_size, Sync sync) override;
    backend::EventPtr launch(backend::KernelImpl& kernel, const backend::LaunchGeometry& geometry,
                             const std::vector<backend::KernelArg>& args) override;
    backend::EventPtr record() override;                // a timed cuEventRecord
    void wait_for(backend::EventImpl& event) override;  // cuStreamWaitEvent
    void finish() override;                             // cuStreamSynchronize: blocks
    NativeHandle native_handle() const override;        // CUstream, owned by this object

private:
    // "queue of CUDA device 0 'NAME'" plus `what`, for error contexts.
    std::string describe(const std::string& what) const;
    // The event of the work just enqueued; waits for it when the call is blocking.
    backend::EventPtr enqueued(Sync sync);

    std::shared_ptr<DeviceImpl> device_;
    CUstream stream_ = nullptr;
};

}  // namespace dualrt::cuda
