#include "pipeline_plan.hpp"

#include <algorithm>

namespace dualrt::detail {

std::vector<ChunkExtent> even_chunks(std::size_t first, std::size_t count, std::size_t per_chunk) {
    std::vector<ChunkExtent> chunks;
    if (per_chunk == 0) return chunks;
    for (std::size_t offset = first; offset < first + count; offset += per_chunk)
        chunks.push_back(ChunkExtent{offset, std::min(per_chunk, first + count - offset)});
    return chunks;
}

std::size_t min_chunk_elements(std::size_t elem_size) {
    // 256 KiB moves in ~5 µs at 55 GB/s: about the fixed cost of a chunk, so smaller chunks
    // spend more time on overhead than on data.
    constexpr std::size_t min_chunk_bytes = 256u << 10;
    return std::max<std::size_t>(1, min_chunk_bytes / std::max<std::size_t>(1, elem_size));
}

StageModel StageModel::fit(double small_elements, double small_ms, double large_elements,
                           double large_ms) {
    StageModel model;
    if (large_elements > small_elements)
        model.per_element_ms = std::max(0.0, (large_ms - small_ms) / (large_elements - small_elements));
    model.fixed_ms = std::max(0.0, small_ms - model.per_element_ms * small_elements);
    return model;
}

double predicted_ms(const StageModel (&stages)[3], bool two_queues, std::size_t elements,
                    std::size_t chunks) {
    const double b = static_cast<double>(elements) / static_cast<double>(chunks);
    const double upload = stages[0].at(b), compute = stages[1].at(b), download = stages[2].at(b);
    const double busiest = two_queues ? std::max(upload + download, compute)
                                      : std::max({upload, compute, download});
    const double one_chunk = upload + compute + download;
    return static_cast<double>(chunks) * busiest + std::max(0.0, one_chunk - busiest);
}

std::size_t best_chunk_count(const StageModel (&stages)[3], bool two_queues,
                             std::size_t elements, std::size_t max_chunks) {
    std::size_t best = 1;
    double best_ms = predicted_ms(stages, two_queues, elements, 1);
    for (std::size_t chunks = 2; chunks <= max_chunks; ++chunks) {
        const double ms = predicted_ms(stages, two_queues, elements, chunks);
        // Ask for a clear gain before adding chunks: each one also costs host work and makes
        // the run more sensitive to scheduling noise the model does not see.
        if (ms < best_ms * 0.995) {
            best = chunks;
            best_ms = ms;
        }
    }
    return best;
}

}  // namespace dualrt::detail
