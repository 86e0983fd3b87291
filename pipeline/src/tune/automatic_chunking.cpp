#include "tune/automatic_chunking.hpp"

#include "run/chunk_extents.hpp"
#include "support/raise.hpp"

#include <algorithm>

namespace dualrt::detail {
namespace {

// Chunks of one device's automatic run: about this fraction of the arrays, within these bytes of
// the widest array (automatic_chunking.hpp says why).
constexpr std::size_t chunk_fraction = 4;
constexpr std::size_t chunk_min_bytes = std::size_t{1} << 20;
constexpr std::size_t chunk_max_bytes = std::size_t{16} << 20;
// No chunk smaller, in bytes of the widest array: below about this a chunk's fixed costs outweigh
// what it moves on any GPU measured.
constexpr std::size_t smallest_chunk_bytes = std::size_t{64} << 10;
// No chunk larger, in bytes of the widest array: keeps device memory (depth x chunk) modest; and
// where some array is staged, each staged array keeps depth + 2 pinned buffers of the largest
// chunk, and pinning costs more than it saves above the smaller bound.
constexpr std::size_t largest_chunk_bytes = std::size_t{256} << 20;
constexpr std::size_t largest_staged_chunk_bytes = std::size_t{16} << 20;
// Runs dealt to several devices: chunks of about 1/(devices x this) of the arrays, at least
// dealt_min_bytes, ending in dealt_tail halvings.
constexpr std::size_t min_chunks_per_device = 32;
constexpr std::size_t dealt_min_bytes = std::size_t{1} << 20;
constexpr std::size_t dealt_tail = 3;

std::size_t round_up(std::size_t value, std::size_t granule) {
    return (value + granule - 1) / granule * granule;
}

PlanDecision fixed_plan(const Chunking& chunking, const PlanRequest& request,
                        const char* operation) {
    const std::size_t granule = request.granule;
    std::size_t per_chunk = 0;
    if (chunking.kind() == Chunking::Kind::count) {
        const std::size_t granules = (request.count + granule - 1) / granule;
        per_chunk = (granules + chunking.value() - 1) / chunking.value() * granule;
    } else {
        per_chunk = chunking.value();
        if (per_chunk % granule != 0)
            raise_argument(operation, "Chunking::elements(" + std::to_string(per_chunk) +
                                          ") does not cut whole rows of " +
                                          std::to_string(granule) +
                                          " elements (Halo::rows); expected a multiple of " +
                                          std::to_string(granule));
    }
    PlanDecision plan;
    plan.sizes = fixed_sizes(request.count, per_chunk);
    plan.how = "fixed: " + chunking.str() + ", " + describe_sizes(plan.sizes);
    return plan;
}

// The smallest chunk a plan may use: whole rows, with room for the halo.
std::size_t smallest_chunk(const PlanRequest& request) {
    return round_up(std::max(smallest_chunk_bytes / request.widest_elem, request.halo_elements),
                    request.granule);
}

// The largest chunk a plan may use, in whole rows.
std::size_t largest_chunk(const PlanRequest& request) {
    const std::size_t bytes = request.staged ? largest_staged_chunk_bytes : largest_chunk_bytes;
    return std::max(smallest_chunk(request),
                    bytes / request.widest_elem / request.granule * request.granule);
}

PlanDecision one_device_plan(const PlanRequest& request) {
    const std::size_t smallest = smallest_chunk(request);
    const std::size_t body = std::min(
        std::max(smallest, round_up(std::clamp(request.count / chunk_fraction,
                                               chunk_min_bytes / request.widest_elem,
                                               chunk_max_bytes / request.widest_elem),
                                    request.granule)),
        largest_chunk(request));
    // The nearest count of chunks of that size, but no more than keep every chunk at least the
    // smallest (which holds the halo).
    const std::size_t chunks =
        std::max<std::size_t>(1, std::min((request.count + body / 2) / body,
                                          request.count / smallest));
    PlanDecision plan;
    plan.sizes = equal_sizes(request.count, chunks, request.granule);
    plan.how = "auto: " + describe_sizes(plan.sizes);
    return plan;
}

PlanDecision dealt_plan(const PlanRequest& request) {
    const std::size_t granule = request.granule;
    const std::size_t smallest = smallest_chunk(request);
    const std::size_t share =
        request.count / (request.devices * min_chunks_per_device) / granule * granule;
    const std::size_t floor = round_up(dealt_min_bytes / request.widest_elem, granule);
    const std::size_t largest =
        std::max(smallest, std::min(largest_chunk(request), std::max(share, floor)));
    PlanDecision plan;
    plan.sizes = shaped_sizes(request.count, largest, 0, dealt_tail, granule,
                              std::min(std::max(smallest, floor), largest));
    if (plan.sizes.empty())
        plan.sizes = equal_sizes(request.count,
                                 std::max<std::size_t>(1, (request.count + largest - 1) / largest),
                                 granule);
    plan.how = "auto: dealt to " + std::to_string(request.devices) + " devices, chunks of 1/" +
               std::to_string(request.devices * min_chunks_per_device) +
               " of the arrays where the chunk size bounds allow, ending in halvings: " +
               describe_sizes(plan.sizes);
    return plan;
}

}  // namespace

PlanDecision choose_plan(const Chunking& chunking, const PlanRequest& request,
                         const char* operation) {
    if (chunking.kind() != Chunking::Kind::automatic)
        return fixed_plan(chunking, request, operation);
    return request.devices > 1 ? dealt_plan(request) : one_device_plan(request);
}

}  // namespace dualrt::detail
