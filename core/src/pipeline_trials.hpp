// Automatic chunking's check on its own plans, by measurement. The stage model is fitted from
// timed spans, which miss what the copies of several chunks in flight do to each other, so the
// chunk count it finds best can be off by a factor of two either way: a 1 GiB pinned triad on
// one H200 ran its model's 197 chunks in 42.2-44.4 ms where 64 chunks took 40.7-41.1 ms (CUDA),
// and NVIDIA's OpenCL ran `overlap` fastest at 32-64 chunks where auto took 16 (session 20, GPU
// run A). So once the plan stands, a layout's runs of one length also try the same arrays cut
// into half and twice as many equal chunks as the fastest count so far, and keep whichever count
// is fastest by the median of its latest runs: a walk in octaves that stops where both
// neighbours are slower. Internal.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <string>

namespace dualrt::detail {

class ChunkTrials {
public:
    // How the next run is cut.
    struct Choice {
        std::size_t chunks = 0;  // 0: the planner's own plan; else this many equal chunks
        bool trial = false;      // a count tried against the fastest so far, not the fastest
        std::string why;         // for PipelineReport::chunking; "" while nothing is compared
    };

    // For a run whose planner cut the arrays into `planned` chunks; `fewest` and `most`: the
    // chunk counts that the chunk size limits allow.
    Choice next(std::size_t planned, std::size_t fewest, std::size_t most);
    // What a run of `chunks` chunks took, by the host's clock (the whole Pipeline::run).
    void record(std::size_t chunks, double ms);

private:
    // Chunk counts are compared in quarter octaves: the planner's count moves by a few percent
    // from run to run as its model refines, and such counts run alike.
    static int step_of(std::size_t chunks);
    std::size_t chunks_of(int step) const;  // the count last run in that step
    bool measured(int step) const;  // has enough runs for its median to count
    double median_ms(int step) const;
    // The fastest measured step, kept unless another is faster by a clear margin.
    int fastest(int planned);
    // Choice of `chunks` equal chunks in `step`, or the planner's plan where that is `planned`.
    Choice cut(int step, std::size_t chunks, int planned, bool trial, const std::string& why) const;

    struct Step {
        std::size_t chunks = 0;     // the count last run in it
        std::deque<double> times;  // its latest runs' times, oldest first
    };
    std::map<int, Step> steps_;
    bool has_fastest_ = false;
    int fastest_ = 0;
    std::size_t settled_runs_ = 0;  // runs at the fastest step with both neighbours measured
};

}  // namespace dualrt::detail
