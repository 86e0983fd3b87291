// How a Pipeline cuts its input: even chunks, and the model "auto" uses to pick their number.
// Internal.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

// Elements [offset, offset + count) of the whole input.
struct ChunkExtent {
    std::size_t offset = 0;
    std::size_t count = 0;
};

// `count` elements from `first` on, cut into chunks of `per_chunk` (the last may be shorter).
std::vector<ChunkExtent> even_chunks(std::size_t first, std::size_t count, std::size_t per_chunk);

// The smallest chunk worth its fixed costs (events, launches, DMA set-up), in elements.
std::size_t min_chunk_elements(std::size_t elem_size);

// Device time of one stage for a chunk of b elements: fixed_ms + per_element_ms * b, fitted to
// the mean stage times measured at two chunk sizes.
struct StageModel {
    double fixed_ms = 0.0;
    double per_element_ms = 0.0;
    double at(double elements) const { return fixed_ms + per_element_ms * elements; }
    static StageModel fit(double small_elements, double small_ms, double large_elements,
                          double large_ms);
};

// The pipelined time of `chunks` chunks over `elements` elements, for stages upload, compute and
// download. The busiest queue runs once per chunk; the other stages add one chunk's worth at the
// start and end (fill and drain). With two queues, uploads and downloads share one queue.
double predicted_ms(const StageModel (&stages)[3], bool two_queues, std::size_t elements,
                    std::size_t chunks);

// The chunk count in [1, max_chunks] with the least predicted time (fewer chunks on a tie).
std::size_t best_chunk_count(const StageModel (&stages)[3], bool two_queues,
                             std::size_t elements, std::size_t max_chunks);

}  // namespace dualrt::detail
