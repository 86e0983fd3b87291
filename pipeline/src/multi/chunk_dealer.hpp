// Dealing the chunks of a run over several devices: one shared list of chunks in array order,
// each handed to the device that asks for it first, unless taking it would make that device
// finish after the others would have finished everything left. A device whose speed is not
// known yet first takes a small piece of a chunk, so that a slow one cannot hold up the end of
// the run with a whole chunk before anyone knows it is slow. Internal.
#pragma once

#include "run/chunk_extents.hpp"
#include "run/chunk_scheduler.hpp"
#include "tune/stage_model.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

namespace dualrt::detail {

// Thread-safe: each device's driver asks from its own thread.
class ChunkDealer {
public:
    // `chunks` in array order (the plan); `prior_rates[d]`: elements per ms device d reached in
    // earlier runs of the same layout (0: unknown). A piece split off a chunk is a multiple of
    // `granule` and at least `smallest` elements, and so is what it leaves.
    ChunkDealer(const std::vector<ChunkExtent>& chunks, std::vector<double> prior_rates,
                std::size_t granule, std::size_t smallest);

    // Device d's next chunk (its index in the run in `global`), or wait, or stop; see
    // ChunkSource::next. The rule:
    // - the fastest device by measured rate takes the next chunk; so does any device while no
    //   other one's rate is known;
    // - a device whose rate is unknown takes a piece of an eighth of the next chunk, and no
    //   other until it has finished one;
    // - a slower device takes the next chunk only if, at its rate, it finishes it (after its
    //   unfinished chunks) no later than the others would finish the rest without it. If not,
    //   it waits for one of its own chunks to finish, or with none in flight, until another
    //   device finishes one (the rates and the rest change) or the chunks run out.
    // Blocks only in the last case.
    ChunkSource::Answer next(std::size_t d, std::size_t unfinished, std::size_t& global,
                             ChunkExtent& chunk);
    void finished(std::size_t d, std::size_t elements);
    void stop();  // a device failed: no more chunks for anyone
    // The chunks dealt, in array order (the run's chunks; `global` indexes them).
    const std::vector<ChunkExtent>& dealt() const { return dealt_; }

private:
    using Clock = std::chrono::steady_clock;
    struct Share {
        double prior_rate = 0.0;
        std::size_t unfinished_elements = 0;
        std::size_t finished_elements = 0;
        std::size_t finished_chunks = 0;
        // Its time with chunks in flight, up to its last finish: a rate over the run's time
        // would count the waits of a slow device between its chunks against it.
        double busy_ms = 0.0;          // of the spells that have ended
        Clock::time_point busy_since;  // the start of the current spell (unfinished > 0)
        Clock::time_point last_finish;
    };
    // Elements per ms of device d over its busy time (chunks in flight): measured in this run
    // once it has finished a few chunks, else the prior (0: unknown). Caller holds mutex_.
    double rate_locked(std::size_t d) const;
    bool worth_taking(std::size_t d, std::size_t elements) const;
    bool rate_known_elsewhere(std::size_t d) const;

    std::mutex mutex_;
    std::condition_variable changed_;  // a chunk finished, or the dealing stopped
    const std::vector<ChunkExtent>& chunks_;
    const std::size_t granule_, smallest_;
    std::vector<Share> shares_;
    std::size_t next_ = 0;                // the first chunk of the plan not wholly dealt
    std::size_t taken_of_next_ = 0;       // its elements dealt already, as pieces
    std::size_t remaining_elements_ = 0;  // not dealt
    std::vector<ChunkExtent> dealt_;
    bool stopped_ = false;
};

// One device's view of the dealer, for its ChunkScheduler; remembers which chunks it took.
class DealtChunks final : public ChunkSource {
public:
    DealtChunks(ChunkDealer& dealer, std::size_t device) : dealer_(dealer), device_(device) {}
    Answer next(std::size_t unfinished, ChunkExtent& chunk) override;
    void finished(std::size_t elements) override { dealer_.finished(device_, elements); }
    // The index in the whole run of the device's chunk i.
    const std::vector<std::size_t>& global_indices() const { return global_; }

private:
    ChunkDealer& dealer_;
    std::size_t device_;
    std::vector<std::size_t> global_;
};

}  // namespace dualrt::detail
