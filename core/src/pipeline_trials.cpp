#include "pipeline_trials.hpp"

#include "pipeline_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace dualrt::detail {
namespace {

constexpr int steps_per_octave = 4;
// A count's median counts once it has this many runs; the latest runs_kept make it.
constexpr std::size_t runs_needed = 2;
constexpr std::size_t runs_kept = 3;
// Another count replaces the fastest only when its median is faster by more than this share:
// two counts that run alike must not take turns.
constexpr double clear_margin = 0.01;
// Runs shorter than this keep the planner's plan: their times differ by the host's noise more
// than by their chunks (a 16 MiB stream runs in about 0.5 ms).
constexpr double min_trial_ms = 2.0;
// Once settled, every this many runs one neighbour is run again, so that a count measured
// slow in a bad moment (pageable staging swings by 15% from run to run) gets another chance.
constexpr std::size_t recheck_every = 16;

std::string ms_text(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", ms);
    return text;
}

}  // namespace

int ChunkTrials::step_of(std::size_t chunks) {
    return static_cast<int>(
        std::lround(steps_per_octave * std::log2(static_cast<double>(std::max<std::size_t>(
                                           chunks, 1)))));
}

std::size_t ChunkTrials::chunks_of(int step) const {
    const auto found = steps_.find(step);
    if (found != steps_.end()) return found->second.chunks;
    return std::max<std::size_t>(
        1, static_cast<std::size_t>(
               std::lround(std::exp2(static_cast<double>(step) / steps_per_octave))));
}

bool ChunkTrials::measured(int step) const {
    const auto found = steps_.find(step);
    return found != steps_.end() && found->second.times.size() >= runs_needed;
}

double ChunkTrials::median_ms(int step) const {
    const auto found = steps_.find(step);
    if (found == steps_.end()) return 0.0;
    const std::deque<double>& times = found->second.times;
    return median(std::vector<double>(times.begin(), times.end()));
}

int ChunkTrials::fastest(int planned) {
    if (!has_fastest_ || !measured(fastest_)) {
        fastest_ = planned;
        has_fastest_ = true;
    }
    for (const auto& [step, runs] : steps_) {
        if (step == fastest_ || !measured(step)) continue;
        if (median_ms(step) < (1.0 - clear_margin) * median_ms(fastest_)) {
            fastest_ = step;
            settled_runs_ = 0;
        }
    }
    return fastest_;
}

ChunkTrials::Choice ChunkTrials::cut(int step, std::size_t chunks, int planned, bool trial,
                                     const std::string& why) const {
    Choice choice;
    choice.chunks = step == planned ? 0 : chunks;
    choice.trial = trial;
    choice.why = why;
    return choice;
}

ChunkTrials::Choice ChunkTrials::next(std::size_t planned_chunks, std::size_t fewest,
                                      std::size_t most) {
    const int planned = step_of(planned_chunks);
    // The planner's own plan first, until its runs tell how long this layout runs.
    if (!measured(planned) || median_ms(planned) < min_trial_ms) return Choice{};

    const int best = fastest(planned);
    const std::string best_text =
        std::to_string(chunks_of(best)) + " chunks, " + ms_text(median_ms(best));
    // Half and twice the fastest count, as far as the limits allow.
    std::vector<std::pair<int, std::size_t>> neighbours;  // step, chunks
    for (const std::size_t chunks : {chunks_of(best) / 2, chunks_of(best) * 2}) {
        const int step = step_of(chunks);
        if (chunks >= std::max<std::size_t>(fewest, 1) && chunks <= most && step != best)
            neighbours.emplace_back(step, measured(step) ? chunks_of(step) : chunks);
    }
    for (const auto& [step, chunks] : neighbours)
        if (!measured(step))
            return cut(step, chunks, planned, true,
                       "trying " + std::to_string(chunks) +
                           " equal chunks against the fastest count so far (" + best_text + ")");
    if (!neighbours.empty() && ++settled_runs_ % recheck_every == 0) {
        const auto& [step, chunks] =
            neighbours[(settled_runs_ / recheck_every) % neighbours.size()];
        return cut(step, chunks, planned, true,
                   "trying " + std::to_string(chunks) +
                       " equal chunks again against the fastest count (" + best_text + ")");
    }
    std::string others;
    for (const auto& [step, chunks] : neighbours)
        others += (others.empty() ? "" : ", ") + std::to_string(chunks_of(step)) + " chunks " +
                  ms_text(median_ms(step));
    const std::string against = others.empty() ? "" : " (against " + others + ")";
    if (best == planned)
        return cut(best, 0, planned, false,
                   "measured the fastest count by its latest runs: " + best_text + against);
    return cut(best, chunks_of(best), planned, false,
               std::to_string(chunks_of(best)) + " equal chunks instead, the fastest count by "
                   "the latest runs: " + ms_text(median_ms(best)) + " against the plan's " +
                   ms_text(median_ms(planned)) + against);
}

void ChunkTrials::record(std::size_t chunks, double ms) {
    if (!(ms > 0.0)) return;
    Step& step = steps_[step_of(chunks)];
    step.chunks = chunks;
    if (step.times.size() == runs_kept) step.times.pop_front();
    step.times.push_back(ms);
}

}  // namespace dualrt::detail
