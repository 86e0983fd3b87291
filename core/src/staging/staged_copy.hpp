// Copies between device buffers and pageable host memory through the pinned staging pool: the
// data moves in chunks, and the host memcpy of one chunk (spread over worker threads) overlaps
// the DMA of the others. Internal.
#pragma once

#include <dualrt/types.hpp>

#include "backend/backend.hpp"

#include <cstddef>
#include <memory>

namespace dualrt::detail {

// Below this the driver's own path is as fast (measured on an H200: staging lost at 256 KiB and
// 1 MiB), and a copy need not wait for pool buffers.
inline constexpr std::size_t min_staged_bytes = std::size_t{1} << 20;

// Whether a copy of `bytes` between pageable memory and the device goes through the pool: small
// copies do not gain from it.
inline bool worth_staging(std::size_t bytes) { return bytes >= min_staged_bytes; }

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
