// Which chunks of a run are timed: the price of timing (a few us of host time per timed event,
// more on queues that keep timestamps) against what the report and the lane choice learn from
// it. Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include <cstddef>
#include <vector>

namespace dualrt::detail {

// Which chunks a run times. every_chunk: all. sampled: in a layout's first run, a window of 3
// chunks in the middle and one of the last 4, so that the report has stage times to estimate the
// other chunks from from the start; in later runs one window where `credit_ms` covers its
// estimated cost (`record_ms` per timed event: its record, reading and release; plus
// `surcharge_ms` where a timed run is dearer as a whole: its queues keep timestamps), taking
// turns between middle and end across runs (`run_number`). Spends from `credit_ms`. Written
// into `timed`, whose storage the planner keeps from run to run.
void choose_timed_chunks(std::size_t chunks, PipelineTiming timing, bool first_of_layout,
                         std::size_t run_number, double record_ms, double& credit_ms,
                         double surcharge_ms, std::vector<bool>& timed);

// Which of a device's chunks (by its own count, `room` of them) are timed in a run dealt to
// several devices: all with every_chunk; when sampled, windows of dealt_window consecutive
// chunks, one in every dealt_period, from its second chunk on (at its first the queues are idle,
// and an event's host cost would count as the stage's). Each device's report needs stage times of
// its own, and the windows start early because a slow device may take only a few chunks.
inline constexpr std::size_t dealt_window = 3, dealt_period = 16;
std::vector<bool> dealt_timed_chunks(std::size_t room, PipelineTiming timing);

}  // namespace dualrt::detail
