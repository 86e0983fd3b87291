// Fills with the driver's memset calls. The driver has memsets of 1, 2 and 4-byte values only;
// a wider pattern is written as one strided 2-D memset per 4-byte word of the pattern.
#include "fill.hpp"

#include "check.hpp"

#include <cstdint>
#include <cstring>

namespace dualrt::cuda {
namespace {

// The shortest prefix of the pattern that repeats to make all of it: a fill with zeros, or with
// 0x3f800000 as a double-width pattern, then takes one memset instead of several.
std::size_t period(const unsigned char* pattern, std::size_t size) {
    std::size_t length = 1;
    while (length < size) {
        bool repeats = true;
        for (std::size_t i = length; i < size && repeats; ++i) {
            repeats = pattern[i] == pattern[i % length];
        }
        if (repeats) return length;
        length *= 2;
    }
    return size;
}

template <typename Word>
Word word_at(const unsigned char* bytes) {
    Word word;
    std::memcpy(&word, bytes, sizeof word);
    return word;
}

}  // namespace

void enqueue_fill(CUstream stream, CUdeviceptr address, std::size_t bytes, const void* pattern,
                  std::size_t pattern_size, const std::string& context) {
    const auto* data = static_cast<const unsigned char*>(pattern);
    const std::size_t size = period(data, pattern_size);
    switch (size) {
    case 1:
        CU_CHECK(cuMemsetD8Async(address, data[0], bytes, stream), context);
        return;
    case 2:
        CU_CHECK(cuMemsetD16Async(address, word_at<std::uint16_t>(data), bytes / 2, stream),
                 context);
        return;
    case 4:
        CU_CHECK(cuMemsetD32Async(address, word_at<std::uint32_t>(data), bytes / 4, stream),
                 context);
        return;
    default:
        // Word w of every pattern-sized element: a 2-D memset one word wide, with a pitch of
        // the pattern's size, as many rows as there are elements.
        for (std::size_t w = 0; w < size / 4; ++w) {
            CU_CHECK(cuMemsetD2D32Async(address + 4 * w, size,
                                        word_at<std::uint32_t>(data + 4 * w), 1, bytes / size,
                                        stream),
                     context);
        }
        return;
    }
}

}  // namespace dualrt::cuda
