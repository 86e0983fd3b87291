#include "tune/timed_chunks.hpp"

#include <algorithm>

namespace dualrt::detail {
namespace {

// Consecutive chunks timed together: the first one's stages may have waited behind untimed work
// on their engine; the next ones' start where the timed chunk before them ended.
constexpr std::size_t window_chunks = 3;
constexpr std::size_t records_per_chunk = 4;
// A first run's window at the end: the last chunks, where a plan's odd end is.
constexpr std::size_t end_window_chunks = 4;

void mark_window(std::vector<bool>& timed, std::size_t first,
                 std::size_t length = window_chunks) {
    for (std::size_t i = first; i < std::min(timed.size(), first + length); ++i)
        timed[i] = true;
}

}  // namespace

void choose_timed_chunks(std::size_t chunks, PipelineTiming timing, bool first_of_layout,
                         std::size_t run_number, double record_ms, double& credit_ms,
                         double surcharge_ms, std::vector<bool>& timed) {
    timed.assign(chunks, timing == PipelineTiming::every_chunk);
    if (timing == PipelineTiming::every_chunk || chunks == 0) return;
    // Windows in the middle and at the end, not at the start: there the queues are idle, each
    // timed event completes as it is recorded, and the host's cost of recording it would count
    // as the stage's time.
    const std::size_t middle = chunks / 2 > 1 ? chunks / 2 - 1 : 0;
    const std::size_t last = chunks > window_chunks ? chunks - window_chunks : 0;
    if (first_of_layout) {
        mark_window(timed, middle);
        mark_window(timed, chunks > end_window_chunks ? chunks - end_window_chunks : 0,
                    end_window_chunks);
        return;
    }
    const double window_ms =
        static_cast<double>(window_chunks * records_per_chunk) * record_ms + surcharge_ms;
    if (credit_ms < window_ms) return;
    credit_ms -= window_ms;
    mark_window(timed, run_number % 2 == 0 ? middle : last);
}

std::vector<bool> dealt_timed_chunks(std::size_t room, PipelineTiming timing) {
    std::vector<bool> timed(room, timing == PipelineTiming::every_chunk);
    if (timing == PipelineTiming::sampled)
        for (std::size_t i = 0; i < room; ++i)
            timed[i] = i % dealt_period >= 1 && i % dealt_period <= dealt_window;
    return timed;
}

}  // namespace dualrt::detail
