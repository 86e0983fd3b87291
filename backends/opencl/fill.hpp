// Fills on OpenCL: clEnqueueFillBuffer with a pattern widened as far as the range allows, for a
// driver limit that a narrow pattern meets on large buffers (fill.cpp). Used by queues and by
// recordings, which keep the widened pattern.
#pragma once

#include "cl.hpp"

#include <array>
#include <cstddef>

namespace dualrt::opencl {

// A fill's pattern repeated up to 128 bytes, as far as the offset and size allow.
struct FillPattern {
    std::array<unsigned char, 128> bytes{};
    std::size_t size = 0;
};
FillPattern widened_pattern(const void* pattern, std::size_t pattern_size, std::size_t offset,
                            std::size_t bytes);

// clEnqueueFillBuffer of `bytes` at `offset` with a pattern of pattern_size bytes (a power of two
// up to 128, checked by the core), widened. Throws cl::Error.
void enqueue_fill(const cl::CommandQueue& queue, const cl::Buffer& buffer, const void* pattern,
                  std::size_t pattern_size, std::size_t offset, std::size_t bytes,
                  cl::Event* event);

}  // namespace dualrt::opencl
