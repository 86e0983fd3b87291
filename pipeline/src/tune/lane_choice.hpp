// How a one-device Pipeline's run uses its lanes. Each lane is a queue that runs its chunks'
// upload, compute and download in order, so two lanes already keep the busiest engine busy
// whenever the other two stages of a chunk take no longer than that one: while one lane
// computes and downloads, the other uploads. More lanes then only put more copies on the copy
// engines at once, which NVIDIA's GPUs move slower: c = a + s*b over 256 MiB in 1 and 4 MiB
// chunks ran at 0.90-0.93 of native with four lanes and 1.00-1.02 with two (H100, CUDA). That
// holds where the device sets the pace; chunks too small for it keep every lane (below).
// Balanced stages need three lanes or more; there one queue per stage does better still, each
// engine taking its chunks strictly in order instead of up to four lanes' copies at once: the
// `overlap` sample's balanced stages on an H200 ran in 5.70 ms on three queues against 5.98 on
// four lanes (CUDA, 64 chunks) and 5.84 against 5.97 (NVIDIA OpenCL, 32 chunks), and three queues
// beat four lanes at every count from 8 chunks up on both (docs/overlap.md). So where the mode is
// the library's (PipelineMode::automatic), balanced stages take three queues on CUDA
// (OneDevicePipeline::adapts_mode says why not on OpenCL). Internal.
#pragma once

#include "run/run_timing.hpp"
#include "tune/stage_model.hpp"

#include <cstddef>
#include <string>

namespace dualrt::detail {

// One queue per stage hands each chunk from queue to queue twice (a point recorded on one queue,
// a wait for it on the next): host work that lanes do not do. It pays where the device sets the
// pace. With small chunks the host does: a chunk's four enqueues take about as long as its stages
// run (12-14 us a chunk on an H100 with CUDA, the native stream alike), and the hand-offs add to
// every chunk. A 16 MiB stream in 64 KiB chunks ran at 0.82 of the same stream hand-written on two
// queues on stage queues (two rounds of three) and 0.98-0.99 on two lanes; in 256 KiB chunks at
// 1.10-1.17 on stage queues and 1.03-1.10 on two lanes (H100, CUDA, `stream --size 16M`, three
// rounds, without timed windows). So stage queues need chunks of at least this many bytes of the
// widest array. Smaller chunks keep every lane, balanced or not: lanes add no host work (no
// hand-off between queues), and each one more lets the device overlap one more chunk's command
// latencies, which outweigh a small copy's transfer (64 KiB move in about 1.3 us on an H200). A
// 16 MiB stream in 64 KiB chunks ran at 0.95-1.27 (median 1.09) of the same stream hand-written
// on two queues on four lanes, against 0.96-0.97 on the two lanes its timed stages chose; in
// 128 KiB chunks at 0.95-1.16 (1.06) against 0.97-0.98 (H200, CUDA, `stream --size 16M`, the
// two in one process, three rounds; four lanes at 64 KiB ran either about 0.96 or 1.1-1.27 from
// one process to the next). NVIDIA's OpenCL ran level at 64 KiB (1.84-2.28 against 1.87-2.27)
// and 1-4% faster at 128 KiB.
inline constexpr std::size_t min_stage_queue_chunk_bytes = std::size_t{256} << 10;

// What the timed stages of a run say about the lanes the next run of the layout needs.
struct LaneChoice {
    bool known = false;      // enough chunks had all three stages timed in order
    std::size_t lanes = 0;   // 2, or 0 for all of the Pipeline's lanes
    // Balanced stages (lanes 0): one queue per stage would serve them better than lanes.
    bool stage_queues = false;
    double busiest_share = 0.0;  // the busiest stage's share of a chunk's three stages
};

// Two lanes where the busiest stage takes at least two_lane_share of the timed chunks' stage
// time (summed over the chunks whose three stages were all timed in order, at least three), all
// lanes or one queue per stage otherwise; not known with fewer such chunks (a CPU device runs
// queues side by side, and its spans say little of any one stage). The chunks add up over a
// layout's runs: those of `timing` join `evidence`, and once it holds enough the choice is made
// from all of it and `evidence` starts afresh. A run that times one window of three chunks knows
// the start of two, so without this a layout whose runs each timed one window never chose (on an
// H200 a 2 GiB triad kept four lanes so).
LaneChoice choose_lanes(const ResolvedTiming& timing, LaneEvidence& evidence);

// "on 2 of 4 lanes (...)": why a run used fewer lanes than the Pipeline has, for its report.
std::string describe_lanes(std::size_t used, std::size_t lanes, double busiest_share);
// "on one queue per stage instead of 4 lanes (...)": why a run took three queues.
std::string describe_stage_queues(std::size_t lanes, double busiest_share);
// "on one queue per stage instead of 4 lanes (...)": why a replayed run took three queues.
std::string describe_replayed_stage_queues(std::size_t lanes);

}  // namespace dualrt::detail
