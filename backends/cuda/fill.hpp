// Filling device memory with a repeated pattern of 1 to 128 bytes on a stream.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>

namespace dualrt::cuda {

// Enqueues the fill of [address, address + bytes) with `pattern` repeated. pattern_size is a
// power of two in 1..128; address and bytes are multiples of it (checked by the core).
// The pattern is read before the call returns. Throws dualrt::Error with `context` on failure.
void enqueue_fill(CUstream stream, CUdeviceptr address, std::size_t bytes, const void* pattern,
                  std::size_t pattern_size, const std::string& context);

}  // namespace dualrt::cuda
