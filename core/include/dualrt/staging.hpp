/// @file
/// The pinned staging pool: what it holds and how it has been used.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dualrt {

/// What the staging pool of one device holds and how it has been used (Device::staging_stats).
///
/// Copies between a device and ordinary (pageable) host memory go through a bounded pool of
/// pinned host buffers, one pool per device: the data is cut into chunks, and the host memcpy of
/// one chunk overlaps the DMA of the one before. The cap is DUALRT_STAGING_LIMIT (bytes, with an
/// optional K/M/G suffix; 0 turns staging off), else Device::set_staging_limit, else 256 MiB.
struct StagingStats {
    std::size_t limit_bytes = 0;  ///< the cap on pinned bytes the pool may hold
    std::size_t chunk_bytes = 0;  ///< the size of one staging buffer
    /// Smaller copies to the device skip the pool (the driver's own path is as fast) ...
    std::size_t min_staged_upload_bytes = 0;
    /// ... and so do smaller copies from it.
    std::size_t min_staged_download_bytes = 0;
    std::size_t pinned_bytes = 0;       ///< pinned bytes the pool holds now (idle or in use)
    std::size_t peak_pinned_bytes = 0;  ///< the most it has held
    std::size_t buffers = 0;            ///< staging buffers held now
    std::uint64_t hits = 0;    ///< buffers handed out from the pool
    std::uint64_t misses = 0;  ///< buffers that had to be pinned first
    /// Pinning refused by the system: a smaller buffer was pinned instead ...
    std::uint64_t smaller_fallbacks = 0;
    /// ... or none at all, and the copy went through the driver's own pageable path.
    std::uint64_t pageable_fallbacks = 0;
    std::uint64_t staged_copies = 0;  ///< copies that went through the pool
    std::uint64_t staged_bytes = 0;   ///< and the bytes they moved
};

}  // namespace dualrt
