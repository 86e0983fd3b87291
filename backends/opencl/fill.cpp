#include "fill.hpp"

#include <cstring>

namespace dualrt::opencl {

// NVIDIA's OpenCL (580, H200) faults with -9999 when a 1-byte-pattern clEnqueueFillBuffer reaches
// past 2 GiB of its buffer, whether in one call or in 1 GiB pieces: an index of 32 bits inside the
// driver, counting pattern elements. So the pattern is widened, repeated up to 128 bytes as far as
// the offset and size allow, which keeps the element count of any buffer below 2^31 (128-byte
// elements reach 256 GiB). The filled bytes are the same.
FillPattern widened_pattern(const void* pattern, std::size_t pattern_size, std::size_t offset,
                            std::size_t bytes) {
    FillPattern wide;
    wide.size = pattern_size;
    while (wide.size < 128 && offset % (2 * wide.size) == 0 && bytes % (2 * wide.size) == 0)
        wide.size *= 2;
    for (std::size_t at = 0; at < wide.size; at += pattern_size)
        std::memcpy(wide.bytes.data() + at, pattern, pattern_size);
    return wide;
}

void enqueue_fill(const cl::CommandQueue& queue, const cl::Buffer& buffer, const void* pattern,
                  std::size_t pattern_size, std::size_t offset, std::size_t bytes,
                  cl::Event* event) {
    const FillPattern wide = widened_pattern(pattern, pattern_size, offset, bytes);
    cl_event made = nullptr;
    const cl_int status =
        clEnqueueFillBuffer(queue(), buffer(), wide.bytes.data(), wide.size, offset, bytes, 0,
                            nullptr, event != nullptr ? &made : nullptr);
    if (status != CL_SUCCESS) throw cl::Error(status, "clEnqueueFillBuffer");
    if (event != nullptr) *event = cl::Event(made);  // takes the reference the driver gave
}

}  // namespace dualrt::opencl
