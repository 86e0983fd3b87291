// Whether a run of a Pipeline over several devices deals its chunks to every device or gives them
// all to the fastest. Internal.
#pragma once

#include "run/median.hpp"

#include <cstddef>
#include <vector>

namespace dualrt::detail {

// Whether a run deals to every device or to the fastest alone. The devices share the host (its
// memory bandwidth and cores: a CPU device uses them, and so does pageable staging for a GPU), so
// a slow device may cost the fast one more than it adds, which the dealing cannot see: it only
// measures each device's rate while they share. So the runs of a layout measure both ways (the
// whole run's throughput; the first run is left out, as it pays for warming up), twice each in
// turns (once, where every device lost by more than 20%), then later runs
// take the better by the median of each way's latest runs (every device only where it is better
// by more than 2%), and every few runs the other is measured again (the more it loses, the more
// seldom). The median, not a running mean: one stalled run (0.4 s among runs of 0.1 s on NVIDIA's
// OpenCL) must not flip the choice for the runs after it.
class MixChoice {
public:
    bool fastest_alone() const;  // for the next run
    bool measuring() const;      // still measuring each way before the first choice
    // What a run that went `alone` (or not) reached, in elements per ms of the whole run.
    void learn(bool alone, double elements_per_ms);
    double together() const { return median(together_); }  // elements per ms (0: not measured)
    double alone() const { return median(alone_); }        // elements per ms (0: not measured)

private:
    std::vector<double> together_, alone_;  // the latest runs' throughputs, oldest first
    std::size_t runs_ = 0;
};

}  // namespace dualrt::detail
