// Copies between device buffers and pageable host memory through the pinned staging pool: the
// data moves in chunks, and the host memcpy of one chunk (spread over worker threads) overlaps
// the DMA of the others. Internal.
#pragma once

#include <dualrt/types.hpp>

#include "backend/backend.hpp"

#include <cstddef>
#include <memory>

namespace dualrt::detail {

// The smallest copies between `device` and pageable memory that go through the pool, one bound
// per direction; below them the driver's own pageable path is as fast, and a copy need not wait
// for pool buffers. Measured against that path in the same runs (`bandwidth --size` and
// `--sweep`, an H200, CUDA 13 and NVIDIA's OpenCL): at 256 KiB staging wins both ways on both
// backends (CUDA 15.7-16.5 GB/s against the driver's 9.5-10.9 host to device, 9.8-11.7 against
// 6.5-7.5 device to host; OpenCL 7.3-9.3 against 4.9-5.5 and 5.7-6.4 against 3.4-3.7). At
// 64 KiB it still wins host to device on CUDA (4.9-6.6 against 2.8-3.5), but loses device to
// host there (3.6-3.9 against 4.1), where the download's wait for its DMA cannot overlap the host
// copy of a single piece; on OpenCL it gained 3-22% host to device alone, and lost 3x after the
// pool had served a 1 GiB copy (0.65 against 2.02). A device in the host's own memory (a CPU
// device) keeps a larger bound both ways: there the pool only adds a memcpy.
inline std::size_t min_staged_upload_bytes(const DeviceInfo& device) {
    if (device.shares_host_memory) return std::size_t{1} << 20;
    return device.backend == Backend::cuda ? std::size_t{64} << 10 : std::size_t{256} << 10;
}

inline std::size_t min_staged_download_bytes(const DeviceInfo& device) {
    return device.shares_host_memory ? std::size_t{1} << 20 : std::size_t{256} << 10;
}

// Whether a copy of `bytes` from pageable memory to `device` goes through the pool.
inline bool worth_staging_upload(const backend::DeviceImpl& device, std::size_t bytes) {
    return bytes >= min_staged_upload_bytes(device.info());
}

// Whether a copy of `bytes` from `device` to pageable memory goes through the pool.
inline bool worth_staging_download(const backend::DeviceImpl& device, std::size_t bytes) {
    return bytes >= min_staged_download_bytes(device.info());
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
