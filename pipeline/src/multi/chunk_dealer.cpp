#include "multi/chunk_dealer.hpp"

#include <algorithm>
#include <cmath>

namespace dualrt::detail {
namespace {

// A device's rate measured in a run counts once it has finished this many chunks: the first
// one's time includes the fill of its pipeline. Without a prior, after its first.
constexpr std::size_t chunks_for_rate = 3;
// A device of unknown speed takes this share of a chunk first.
constexpr std::size_t probe_share = 8;
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

ChunkSource::Answer DealtChunks::next(std::size_t unfinished, ChunkExtent& chunk) {
    std::size_t global = 0;
    const Answer answer = dealer_.next(device_, unfinished, global, chunk);
    if (answer == Answer::take) global_.push_back(global);
    return answer;
}

}  // namespace dualrt::detail
