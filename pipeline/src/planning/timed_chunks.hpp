// Which chunks of a run are timed: the price of timing (a few us of host time per timed event,
// more on queues that keep timestamps) against what the stage model and the report learn from
// it. Internal.
#pragma once

#include <dualrt/pipeline.hpp>

#include <cstddef>
#include <vector>

namespace dualrt::detail {

// Whether a learning run's timed windows (learning_records timed events of `record_ms` each)
// cost at most half the least time the run can take: its `bytes` over the bus at
// fastest_bus_gbps (a third or less of its real time, where the bus runs at 55-75 GB/s). On a
// 16 MiB stream (48 MiB moved) CUDA's 2 us events pass, NVIDIA OpenCL's 9 us markers do not:
// such runs take the safe plan and learn from the credit-paid windows of later runs instead.
inline constexpr std::size_t learning_records = 28;  // windows of 3 and 4 chunks, 4 points each
inline constexpr double fastest_bus_gbps = 100.0;    // above PCIe 5 x16 both ways (H200: 101.6)
inline constexpr double learning_share = 0.5;
bool learning_affordable(std::size_t bytes, double record_ms);

// Which chunks a run times. every_chunk: all. sampled: in a learning run, a window of 3 chunks
// in the middle and one of the last 4 (a shaped plan's shrinking end: three more sizes); in
// other runs one window where `credit_ms` covers its estimated cost (`record_ms` per timed
// event, plus `surcharge_ms` where a timed run is dearer as a whole: its queues keep
// timestamps), taking turns between middle and end across runs (`run_number`). Spends from
// `credit_ms`.
std::vector<bool> choose_timed_chunks(std::size_t chunks, PipelineTiming timing, bool learning,
                                      std::size_t run_number, double record_ms,
                                      double& credit_ms, double surcharge_ms = 0.0);

// Which of a device's chunks (by its own count, `room` of them) are timed in a run dealt to
// several devices: all with every_chunk; when sampled, windows of dealt_window consecutive
// chunks, one in every dealt_period, from its second chunk on (at its first the queues are idle,
// and an event's host cost would count as the stage's). Each device's report needs stage times of
// its own, and the windows start early because a slow device may take only a few chunks.
inline constexpr std::size_t dealt_window = 3, dealt_period = 16;
std::vector<bool> dealt_timed_chunks(std::size_t room, PipelineTiming timing);

}  // namespace dualrt::detail
