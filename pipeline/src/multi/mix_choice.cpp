#include "multi/mix_choice.hpp"

#include <algorithm>
#include <cmath>

namespace dualrt::detail {
namespace {

// Once both ways are measured, the way not taken is measured again every this many runs, or
// more seldom where it loses by so much that a run of it would cost more than recheck_share of
// the runs' time: two H200s together ran a triad in 50 ms, one alone in 83 ms, so measuring the
// one alone every 10th run cost 6.6% of a loop of runs.
constexpr std::size_t recheck_every = 10;
constexpr double recheck_share = 0.01;
// MixChoice: the latest runs of each way whose median it compares.
constexpr std::size_t mix_runs_kept = 5;
// MixChoice measures each way this many times, in turns, before it chooses: runs from pageable
// memory swing by 15% (an H200 alone took 76.7-108.2 ms for a 1 GiB triad), and one unlucky run
// of each way chose every device at 0.819x the GPU alone.
constexpr std::size_t mix_runs_first = 2;
// Every device is chosen only when it beats the fastest alone by more than this share: it risks
// more (a device slowing the others' host work), and gains less than the runs' noise below it.
constexpr double together_margin = 0.02;
// One run of each way is enough where every device lost by more than this share, more than the
// runs' swing: choosing the fastest alone risks nothing (the other way is measured again later),
// and a second run of every device would cost as much as a quarter of a run (NVIDIA OpenCL beside
// PoCL's CPU, pageable 1 GiB triad: 108-124 ms with every device, 76-102 ms the GPU alone).
// Choosing every device still takes two runs of each way.
constexpr double clear_loss = 0.2;

}  // namespace

bool MixChoice::measuring() const {
    if (together_.empty() || alone_.empty()) return true;
    if (together() * (1.0 + clear_loss) < alone()) return false;  // every device clearly lost
    return together_.size() < mix_runs_first || alone_.size() < mix_runs_first;
}

bool MixChoice::fastest_alone() const {
    // Warming up, then each way in turns, every device first.
    if (measuring()) return alone_.size() < together_.size();
    const double together_rate = together(), alone_rate = alone();
    const bool better = together_rate <= (1.0 + together_margin) * alone_rate;
    const double loss =
        std::max(alone_rate, together_rate) / std::min(alone_rate, together_rate) - 1.0;
    const auto every = std::max(recheck_every,
                                static_cast<std::size_t>(std::ceil(loss / recheck_share)));
    return runs_ % every == 0 ? !better : better;
}

void MixChoice::learn(bool alone, double elements_per_ms) {
    // The first run pays for warming up (device buffers, pinned rings, first launches).
    const bool first = runs_++ == 0;
    if (first || elements_per_ms <= 0.0) return;
    std::vector<double>& runs = alone ? alone_ : together_;
    if (runs.size() == mix_runs_kept) runs.erase(runs.begin());
    runs.push_back(elements_per_ms);
}

}  // namespace dualrt::detail
