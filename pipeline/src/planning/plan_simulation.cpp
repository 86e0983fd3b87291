#include "planning/plan_simulation.hpp"

#include "run/chunk_extents.hpp"

#include <algorithm>
#include <cmath>

namespace dualrt::detail {
namespace {

// A candidate must predict at least this much less than the best so far to replace it: more
// chunks or a more intricate shape also cost what the model does not see (scheduling noise).
constexpr double clear_gain = 0.002;
// Shapes tried around the best equal size: up to this many halvings at each end.
constexpr std::size_t max_ramp = 6;
// Counts of equal chunks the simulation plays, the best by the closed-form estimate.
constexpr std::size_t simulated_counts = 4;

// The time of `chunks` equal chunks in closed form: the busiest resource once per chunk (the
// host, a copy engine, the compute units, or a chunk's whole journey shared by `depth` slots),
// and the other stages of one chunk as fill and drain. It ranks chunk counts for the
// simulation, which plays only the best few.
double estimate_ms(std::size_t count, std::size_t chunks, const StageModels& models,
                   const ScheduleShape& shape) {
    const double b = static_cast<double>(count) / static_cast<double>(chunks);
    const double host = models.stage[host_stage].at(b), up = models.stage[upload_stage].at(b);
    const double compute = models.stage[compute_stage].at(b);
    const double down = models.stage[download_stage].at(b);
    const double journey = up + compute + down;
    const double copy = shape.mode == PipelineMode::two_queues ? up + down : std::max(up, down);
    const double busiest = std::max(copy, compute);
    const double slots = static_cast<double>(std::max<std::size_t>(1, shape.depth));
    const double per_chunk = std::max({host, busiest, journey / slots});
    return static_cast<double>(chunks) * per_chunk + journey - busiest;
}

}  // namespace

double simulate_ms(const std::vector<std::size_t>& sizes, const StageModels& models,
                   const ScheduleShape& shape) {
    const std::size_t n = sizes.size();
    if (n == 0) return 0.0;
    const bool two = shape.mode == PipelineMode::two_queues;
    const auto cost = [&](std::size_t stage, std::size_t i) {
        return models.stage[stage].at(static_cast<double>(sizes[i]));
    };
    std::vector<double> up_end(n, 0.0), down_end(n, 0.0);
    double host_free = 0.0, upload_free = 0.0, compute_free = 0.0, download_free = 0.0;
    double first_start = 0.0;
    const auto upload = [&](std::size_t i) {
        double host_start = host_free;
        if (shape.staging_slots > 0 && i >= shape.staging_slots)
            host_start = std::max(host_start, up_end[i - shape.staging_slots]);
        host_free = host_start + cost(host_stage, i);
        double start = std::max(host_free, upload_free);
        if (i >= shape.depth) start = std::max(start, down_end[i - shape.depth]);
        if (i == 0) first_start = start;
        up_end[i] = start + cost(upload_stage, i);
        upload_free = up_end[i];
    };
    // The enqueue order of the scheduler: each chunk's upload one step ahead of the previous
    // chunk's compute and download.
    upload(0);
    for (std::size_t i = 0; i < n; ++i) {
        if (i + 1 < n) upload(i + 1);
        compute_free = std::max(up_end[i], compute_free) + cost(compute_stage, i);
        double start = std::max(compute_free, download_free);
        // One copy queue: this download was enqueued after the next chunk's upload.
        if (two && i + 1 < n) start = std::max(start, up_end[i + 1]);
        down_end[i] = start + cost(download_stage, i);
        download_free = down_end[i];
        if (two) upload_free = std::max(upload_free, down_end[i]);
    }
    return *std::max_element(down_end.begin(), down_end.end()) - first_start;
}

PlanChoice best_plan(std::size_t count, const PlanLimits& limits, const StageModels& models,
                     const ScheduleShape& shape) {
    PlanChoice best;
    const std::size_t granules = (count + limits.granule - 1) / limits.granule;
    const std::size_t fewest =
        std::max<std::size_t>(1, (count + limits.largest - 1) / limits.largest);
    const std::size_t most =
        std::clamp<std::size_t>(count / std::max<std::size_t>(1, limits.smallest), fewest,
                                std::min(limits.max_chunks, granules));
    const auto consider = [&](std::vector<std::size_t> sizes) {
        if (sizes.empty()) return false;
        const double ms = simulate_ms(sizes, models, shape);
        if (!best.sizes.empty() && ms >= best.predicted_ms * (1.0 - clear_gain)) return false;
        best.sizes = std::move(sizes);
        best.predicted_ms = ms;
        return true;
    };
    // Equal chunks: counts on a geometric grid (steps of 2^(1/8)), ranked in closed form; the
    // best few are simulated, fewest first, so that a tie keeps the fewer chunks.
    std::vector<std::pair<double, std::size_t>> ranked;  // (estimate, count)
    for (double chunks = static_cast<double>(fewest); chunks <= static_cast<double>(most) * 1.0001;
         chunks *= 1.0905) {
        const auto n = static_cast<std::size_t>(std::llround(chunks));
        if (ranked.empty() || ranked.back().second != n)
            ranked.emplace_back(estimate_ms(count, n, models, shape), n);
    }
    if (ranked.back().second != most)
        ranked.emplace_back(estimate_ms(count, most, models, shape), most);
    const std::size_t keep = std::min(simulated_counts, ranked.size());
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep),
                      ranked.end());
    ranked.resize(keep);
    std::sort(ranked.begin(), ranked.end(),
              [](const auto& a, const auto& b) { return a.second < b.second; });
    for (const auto& candidate : ranked)
        consider(equal_sizes(count, candidate.second, limits.granule));
    best.uniform_ms = best.predicted_ms;

    // Shapes around the best equal size: chunks doubling up to it at the start shorten the fill,
    // halving at the end shorten the drain; each halving costs one more chunk's fixed costs.
    const std::size_t body = best.sizes.front();
    for (double scale : {1.0, 0.8409, 1.1892, 0.7071, 1.4142}) {
        const auto size = static_cast<std::size_t>(static_cast<double>(body) * scale);
        if (size < limits.smallest || size > limits.largest) continue;
        std::size_t best_head = 0;
        for (std::size_t head = 1; head <= max_ramp; ++head)
            if (consider(shaped_sizes(count, size, head, 0, limits.granule, limits.smallest)))
                best_head = head;
        for (std::size_t tail = 1; tail <= max_ramp; ++tail)
            consider(shaped_sizes(count, size, best_head, tail, limits.granule, limits.smallest));
    }
    return best;
}

}  // namespace dualrt::detail
