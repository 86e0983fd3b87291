// How a Pipeline cuts its arrays: chunk extents, the shapes of plans (uniform, or growing at the
// start and shrinking at the end), and the halo each chunk's inputs carry. Internal.
#pragma once

#include <dualrt/pipeline_arrays.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

// Elements [offset, offset + count) of every array of a run.
struct ChunkExtent {
    std::size_t offset = 0;
    std::size_t count = 0;
};

// A chunk's input range: its own elements plus the halo that exists around them, clipped to the
// arrays' ends.
struct InputRange {
    std::size_t first = 0;        // the first element uploaded
    std::size_t count = 0;        // elements uploaded: halo_before + own + halo_after
    std::size_t halo_before = 0;  // of them, in front of the chunk's own elements
    std::size_t halo_after = 0;   // and after them
};
InputRange input_range(const ChunkExtent& chunk, const Halo& halo, std::size_t total);

// Consecutive extents of the given sizes from element `first` on.
std::vector<ChunkExtent> extents_of(const std::vector<std::size_t>& sizes, std::size_t first = 0);
// The same into `extents`, whose storage a caller that runs again and again keeps.
void extents_of(const std::vector<std::size_t>& sizes, std::vector<ChunkExtent>& extents,
                std::size_t first = 0);
std::vector<std::size_t> sizes_of(const std::vector<ChunkExtent>& extents);

// `count` elements in chunks of `per_chunk` (the last one shorter where needed).
std::vector<std::size_t> fixed_sizes(std::size_t count, std::size_t per_chunk);

// `count` elements in `chunks` chunks as equal as multiples of `granule` allow (the last one
// takes what is left over). Fewer chunks when there are not enough granules.
std::vector<std::size_t> equal_sizes(std::size_t count, std::size_t chunks, std::size_t granule);

// A shaped plan (a run dealt to several devices ends in halvings): `head` chunks growing by
// doubling up to `body` (the first is body / 2^head), then chunks of at most `body`, as equal as
// they can be, then `tail` chunks shrinking by halving (the last is body / 2^tail). No chunk is
// smaller than `smallest`; sizes are multiples of `granule` except where the arrays end. Empty
// when `count` is too short for the head and tail.
std::vector<std::size_t> shaped_sizes(std::size_t count, std::size_t body, std::size_t head,
                                      std::size_t tail, std::size_t granule, std::size_t smallest);

// Rounds `elements` down to a multiple of `granule`, but not below one granule.
std::size_t round_to_granule(std::size_t elements, std::size_t granule);

// "20 chunks: 3 rising from 65536, 15 of 262144, 2 falling to 65536 elements" and the like.
std::string describe_sizes(const std::vector<std::size_t>& sizes);

}  // namespace dualrt::detail
