// Copies between device buffers and pageable host memory through the pinned staging pool: the
// data moves in chunks, and the host memcpy of one chunk (spread over worker threads) overlaps
// the DMA of the others. Internal.
#pragma once

#include <dualrt/types.hpp>

#include "backend/backend.hpp"

#include <cstddef>
#include <memory>

namespace dualrt::detail {

// The smallest copy between `device` and pageable memory that goes through the pool; below it
// the driver's own pageable path is as fast, and a copy need not wait for pool buffers. Measured
// against that path in the same runs (`bandwidth --size`, an H200, CUDA 13 and NVIDIA's OpenCL):
// at 256 KiB staging wins on both backends (CUDA 15.4-15.7 GB/s against the driver's 10.1-11.2
// host to device, 8.8-10.0 against 7.8-8.0 device to host; OpenCL 6.8 against 4.3-4.8 and 5.3
// against 3.1-3.4), and at 64 KiB it loses device to host on CUDA (3.1-3.5 against 4.1-4.4) and
// gains nothing on OpenCL. A device in the host's own memory (a CPU device) keeps a larger bound:
// there the pool only adds a memcpy.
inline std::size_t min_staged_bytes(const DeviceInfo& device) {
    return device.shares_host_memory ? std::size_t{1} << 20 : std::size_t{256} << 10;
}

// Whether a copy of `bytes` between pageable memory and `device` goes through the pool.
inline bool worth_staging(const backend::DeviceImpl& device, std::size_t bytes) {
    return bytes >= min_staged_bytes(device.info());
}

// host -> device. Returns the event of the last chunk's DMA, or nullptr when the pool had no
// buffer to lend (staging off, or pinning refused): the caller then uses the driver's own path.
// On return the host source has been read completely, whatever `sync` says.
backend::EventPtr staged_write(const std::shared_ptr<backend::DeviceImpl>& device,
                               backend::QueueImpl& queue, backend::BufferImpl& dst,
                               std::size_t dst_offset, const void* src, std::size_t bytes,
                               Sync sync);

// device -> host. Same contract; on return the host destination holds the data, whatever `sync`
// says (each chunk has to land in pinned memory before the host can move it on).
backend::EventPtr staged_read(const std::shared_ptr<backend::DeviceImpl>& device,
                              backend::QueueImpl& queue, void* dst, backend::BufferImpl& src,
                              std::size_t src_offset, std::size_t bytes, Sync sync);

}  // namespace dualrt::detail
