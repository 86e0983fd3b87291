#include "chunk_dealer.hpp"

#include <algorithm>
#include <cmath>

namespace dualrt::detail {
namespace {

// A device's rate measured in a run counts once it has finished this many chunks: the first
// one's time includes the fill of its pipeline. Without a prior, after its first.
constexpr std::size_t chunks_for_rate = 3;
// A device of unknown speed takes this share of a chunk first.
constexpr std::size_t probe_share = 8;
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

ChunkDealer::ChunkDealer(const std::vector<ChunkExtent>& chunks, std::vector<double> prior_rates,
                         std::size_t granule, std::size_t smallest)
    : chunks_(chunks), granule_(std::max<std::size_t>(1, granule)),
      smallest_(std::max(smallest, granule_)), shares_(prior_rates.size()) {
    for (std::size_t d = 0; d < shares_.size(); ++d) shares_[d].prior_rate = prior_rates[d];
    for (const ChunkExtent& chunk : chunks) remaining_elements_ += chunk.count;
}

double ChunkDealer::rate_locked(std::size_t d) const {
    const Share& share = shares_[d];
    const bool measured = share.finished_chunks >= chunks_for_rate ||
                          (share.finished_chunks > 0 && share.prior_rate <= 0.0);
    if (measured) {
        double ms = share.busy_ms;
        if (share.unfinished_elements > 0 && share.last_finish > share.busy_since)
            ms += std::chrono::duration<double, std::milli>(share.last_finish - share.busy_since)
                      .count();
        if (ms > 0.0) return static_cast<double>(share.finished_elements) / ms;
    }
    return share.prior_rate;
}

bool ChunkDealer::worth_taking(std::size_t d, std::size_t elements) const {
    const double mine = rate_locked(d);
    double others = 0.0, fastest_other = 0.0;
    std::size_t others_unfinished = 0;
    for (std::size_t o = 0; o < shares_.size(); ++o) {
        if (o == d) continue;
        const double rate = rate_locked(o);
        if (rate <= 0.0) continue;
        others += rate;
        fastest_other = std::max(fastest_other, rate);
        others_unfinished += shares_[o].unfinished_elements;
    }
    if (mine >= fastest_other) return true;  // the fastest (or no one else measured yet)
    const double my_finish =
        static_cast<double>(shares_[d].unfinished_elements + elements) / mine;
    const double others_finish =
        static_cast<double>(others_unfinished + remaining_elements_ - elements) / others;
    return my_finish <= others_finish;
}

bool ChunkDealer::rate_known_elsewhere(std::size_t d) const {
    for (std::size_t o = 0; o < shares_.size(); ++o)
        if (o != d && rate_locked(o) > 0.0) return true;
    return false;
}

ChunkSource::Answer ChunkDealer::next(std::size_t d, std::size_t unfinished, std::size_t& global,
                                      ChunkExtent& chunk) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        if (stopped_ || next_ == chunks_.size()) return ChunkSource::Answer::stop;
        const bool known = rate_locked(d) > 0.0;
        if (!known && unfinished > 0) return ChunkSource::Answer::wait;
        const ChunkExtent& planned = chunks_[next_];
        const std::size_t left = planned.count - taken_of_next_;
        std::size_t elements = left;
        if (!known) {
            // A probe: an eighth of the chunk, where that leaves a piece large enough.
            const std::size_t piece = std::max(
                smallest_, (planned.count / probe_share) / granule_ * granule_);
            if (piece + smallest_ <= left) elements = piece;
        }
        if (!known || !rate_known_elsewhere(d) || worth_taking(d, elements)) {
            Share& share = shares_[d];
            if (share.unfinished_elements == 0) share.busy_since = Clock::now();
            share.unfinished_elements += elements;
            remaining_elements_ -= elements;
            chunk = ChunkExtent{planned.offset + taken_of_next_, elements};
            taken_of_next_ += elements;
            if (taken_of_next_ == planned.count) {
                ++next_;
                taken_of_next_ = 0;
                // Devices waiting for a better moment learn there is none.
                if (next_ == chunks_.size()) changed_.notify_all();
            }
            global = dealt_.size();
            dealt_.push_back(chunk);
            return ChunkSource::Answer::take;
        }
        if (unfinished > 0) return ChunkSource::Answer::wait;
        changed_.wait(lock);
    }
}

void ChunkDealer::finished(std::size_t d, std::size_t elements) {
    std::lock_guard<std::mutex> lock(mutex_);
    Share& share = shares_[d];
    share.unfinished_elements -= std::min(share.unfinished_elements, elements);
    share.finished_elements += elements;
    ++share.finished_chunks;
    share.last_finish = Clock::now();
    if (share.unfinished_elements == 0)
        share.busy_ms += std::chrono::duration<double, std::milli>(share.last_finish -
                                                                   share.busy_since)
                             .count();
    changed_.notify_all();
}

void ChunkDealer::stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
}

bool MixChoice::measuring() const {
    if (together_.empty() || alone_.empty()) return true;
    if (together() * (1.0 + clear_loss) < alone()) return false;  // every device clearly lost
    return together_.size() < mix_runs_first || alone_.size() < mix_runs_first;
}

bool MixChoice::fastest_alone() const {
    // Warming up and learning, then each way in turns, every device first.
    if (measuring()) return alone_.size() < together_.size();
    const double together_rate = together(), alone_rate = alone();
    const bool better = together_rate <= (1.0 + together_margin) * alone_rate;
    const double loss =
        std::max(alone_rate, together_rate) / std::min(alone_rate, together_rate) - 1.0;
    const auto every = std::max(recheck_every,
                                static_cast<std::size_t>(std::ceil(loss / recheck_share)));
    return runs_ % every == 0 ? !better : better;
}

void MixChoice::learn(bool alone, double elements_per_ms, bool learning) {
    // The first run pays for warming up; a learning run for chunk sizes chosen to be timed, not
    // to be fast (a 1 GiB pageable triad learning with 4 MiB chunks took 107.7 ms on an H100
    // through NVIDIA's OpenCL, against 87.1 planned: together then read as good as alone).
    const bool first = runs_++ == 0;
    if (first || learning || elements_per_ms <= 0.0) return;
    std::vector<double>& runs = alone ? alone_ : together_;
    if (runs.size() == mix_runs_kept) runs.erase(runs.begin());
    runs.push_back(elements_per_ms);
}

ChunkSource::Answer DealtChunks::next(std::size_t unfinished, ChunkExtent& chunk) {
    std::size_t global = 0;
    const Answer answer = dealer_.next(device_, unfinished, global, chunk);
    if (answer == Answer::take) global_.push_back(global);
    return answer;
}

}  // namespace dualrt::detail
