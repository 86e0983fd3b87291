// How the samples warm up a Pipeline with automatic chunking before timing it. Its first runs
// learn (PipelineReport::learning): spread chunk sizes that teach the stage model, then, once
// it plans, its plan measured and half and twice as many chunks tried against it, a few runs
// each. The samples time the Pipeline once it has settled: after its untimed first run, it runs
// untimed until `settled_runs` runs in a row were not learning runs, at most `most_warmups`
// runs. Later learning runs (a count tried again, one run in 17) are timed like the others.
#pragma once

#include <dualrt/pipeline_report.hpp>

namespace dualrt::samples {

class Settling {
public:
    static constexpr int settled_runs = 3;
    static constexpr int most_warmups = 16;

    // Whether the run that gave `report` (after the first) is a warm-up still; `automatic`:
    // the Pipeline chunks automatically (fixed chunks need no more than the first run).
    bool warming_up(const PipelineReport& report, bool automatic) {
        if (!automatic || done_) return false;
        ++warmups_;
        streak_ = report.learning ? 0 : streak_ + 1;
        done_ = streak_ >= settled_runs || warmups_ >= most_warmups;
        return true;
    }
    bool settled() const { return done_; }
    int warmups() const { return warmups_; }  // after the first run

private:
    int streak_ = 0;
    int warmups_ = 0;
    bool done_ = false;
};

}  // namespace dualrt::samples
