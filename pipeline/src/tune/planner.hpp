// The Pipeline's policy for one device: how a run is cut into chunks, which queues it takes,
// which of its chunks are timed, and what each run teaches the runs after it. Every tuned rule of
// the Pipeline lives behind this class, in tune/ (and, for runs over several devices, multi/),
// each with its reason; the mechanism (run/ and the device pipelines) carries out a RunPlan and
// hands back what it measured, with no tuned constants of its own. Internal.
//
// The rules, and where each one is:
//   chunk sizes          automatic_chunking.hpp: fixed cuts for Chunking::count / elements;
//                        automatic chunking's equal chunks of about a quarter of the arrays
//                        (1 to 16 MiB), or small ones dealt to several devices
//   lanes and queues     lane_choice.hpp: every lane for chunks under 256 KiB; from there two
//                        lanes where one engine dominates, all lanes or (on CUDA) one queue per
//                        stage where the stages are balanced; planner.cpp: never more lanes than
//                        a run has chunks
//   timed chunks         timed_chunks.hpp: sampled windows paid from a budget of host time;
//                        planner.cpp: none in a replayable layout once its lanes are chosen
//   replays              planner.cpp: a run in chunks under 256 KiB that times nothing
//                        replays, where it can (run/run_recordings.hpp says where); balanced
//                        stages then take one queue per stage at any chunk size
//   several devices      multi/chunk_dealer.hpp (who takes the next chunk),
//                        multi/mix_choice.hpp (every device, or the fastest alone)
// What the runs teach a layout (its stage model, for the report's estimates, and its lane
// evidence) is in stage_model.hpp.
#pragma once

#include <dualrt/pipeline.hpp>

#include "run/chunk_extents.hpp"
#include "run/chunk_scheduler.hpp"
#include "run/run_checks.hpp"
#include "run/run_timing.hpp"
#include "tune/automatic_chunking.hpp"
#include "tune/stage_model.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace dualrt::detail {

// The queues a mode (resolved, never automatic) needs for `depth` chunks in flight.
std::size_t queue_count(PipelineMode mode, std::size_t depth);

// The queues a run takes: the Pipeline's mode, or three queues in place of lanes, and the chunks
// in flight (the lanes used, or the depth).
struct QueueUse {
    PipelineMode mode = PipelineMode::lanes;
    std::size_t in_flight = 0;
    std::size_t queues() const { return queue_count(mode, in_flight); }
};

// One device's run, as the planner decided it.
struct RunPlan {
    std::vector<std::size_t> sizes;  // the chunks, in array order
    QueueUse queues;
    std::vector<bool> timed;  // chunks that get all four timed points
    // No chunk timed: the run records no event, its start and end are read on the host clock,
    // and it takes the queues without timestamps where the device has them.
    bool host_clock = false;
    std::string how;  // for PipelineReport::chunking
    // The run replays the recording of its layout (PipelineOptions::replay); else, with replay
    // on, why not (for PipelineReport::replay).
    bool replay = false;
    std::string no_replay;
};

// What the mechanism measured in a run, for Planner::learn.
struct RunRecord {
    const std::vector<ChunkExtent>& extents;  // the chunks this device ran, in its order
    const ResolvedTiming& resolved;
    // Of a run of this device alone (not a share of a run dealt to several devices): the host
    // cost of one timed event, its record and its share of reading and releasing the run's
    // (0: none recorded).
    bool whole_run = true;
    double typical_record_ms = 0.0;
};

class Planner {
public:
    // `options` as the Pipeline was made, with its mode and depth resolved. `untimed_queues`:
    // the device has queues without timestamps for runs that time nothing (OpenCL).
    Planner(const PipelineOptions& options, PipelineMode mode, std::size_t depth,
            Backend backend, bool untimed_queues, RecordingPath recording);
    Planner(const Planner&) = delete;  // latest_model_ points into its own models_
    Planner& operator=(const Planner&) = delete;

    // The run of `arrays` (checked, as this device sees them) on this device alone. Throws where
    // fixed chunking does not fit the arrays.
    RunPlan plan(const RunArrays& arrays, const Halo& halo, const char* operation);
    // The same into `plan`, whose storage a caller that runs again and again keeps: a plan
    // made before a run's first command allocates nothing it held last time.
    void plan(const RunArrays& arrays, const Halo& halo, const char* operation, RunPlan& plan);
    // The chunks of a run dealt to `devices` devices (the same whichever device's planner makes
    // them); `staged`: some device stages some array. Its timed chunks and queues are each
    // device's own (dealt_queues, dealt_timed_chunks). The calls about a dealt run name the
    // layout by `arrays` as the Pipeline was given them, for every device alike.
    PlanDecision plan_dealt(const RunArrays& arrays, const Halo& halo, std::size_t devices,
                            bool staged, const char* operation) const;
    // The queues this device takes for its share of a run dealt to several devices in chunks of
    // `sizes`: those its own runs of the layout chose, as a Pipeline of this device alone would
    // run.
    QueueUse dealt_queues(const RunArrays& arrays, const std::vector<std::size_t>& sizes);

    // What a run teaches the layout's model: its timed stages and its lanes.
    void learn(const RunArrays& arrays, const RunRecord& record);
    // The host time of a run of this device alone over `chunks` chunks, after learn(): it sets
    // what later runs of the layout may spend on timed events.
    void learn_run_time(const RunArrays& arrays, std::size_t chunks, double run_ms);

    // For the report: the layout's stage model as fitted now, and how many device-stage
    // samples it holds.
    struct Fitted {
        StageModels models;
        std::size_t device_samples = 0;
    };
    Fitted fit(const RunArrays& arrays);
    // How `use` differs from running on every lane, and why ("" where it does not).
    std::string describe(const QueueUse& use, const RunArrays& arrays);

private:
    LayoutModel& model_of(const RunArrays& arrays);
    // `replayed`: the run replays its layout's recording.
    std::string describe(const QueueUse& use, const LayoutModel& model,
                         bool replayed = false) const;
    // RunPlan::how of a run on `use`: the chunks' description (last_decision_.how) and the
    // queues' (describe).
    const std::string& plan_text(const QueueUse& use, const LayoutModel& model, bool replayed);
    // Whether runs choose their lanes from their timed stages (lanes, the depth left to the
    // library), and whether they may take one queue per stage instead (the mode left to it too).
    bool adapts_lanes() const;
    bool adapts_mode() const;
    // Whether a run of `chunks` chunks of `model` has nothing left to choose its lanes from.
    bool lanes_settled(const LayoutModel& model, std::size_t chunks) const;
    // Why a run over `arrays` in chunks of at most `chunk_bytes` of the widest array does not
    // replay, whatever its timing, into `refusal` ("" where it may).
    void replay_refusal_of(const RunArrays& arrays, std::size_t chunk_bytes,
                           std::string& refusal) const;
    // Whether the run of `plan` replays, and why not (plan.no_replay holds why it may not at
    // all, from replay_refusal_of): it sets plan.replay, plan.no_replay and, for a replayable
    // layout whose lanes are chosen, leaves plan.timed all false.
    void choose_replay(RunPlan& plan, const LayoutModel& model) const;
    // The queues of a run of the layout in chunks of at most `chunk_bytes` of the widest array;
    // `replayed`: the run replays its layout's recording (choose_replay).
    QueueUse queue_use(const LayoutModel& model, std::size_t chunk_bytes,
                       bool replayed = false) const;
    static PlanRequest request_of(const RunArrays& arrays, const Halo& halo);

    PipelineOptions options_;
    PipelineMode mode_;
    std::size_t depth_;
    Backend backend_;
    bool untimed_queues_;
    RecordingPath recording_;
    LayoutModels models_;
    std::string key_;  // model_of's key, its storage kept: every run looks its layout up
    LayoutModel* latest_model_ = nullptr;  // the latest layout looked up (a map's node stays)
    RunArrays latest_layout_;              // and its arrays, for same_layout
    // The latest run's chunks: choose_plan depends on the request alone, and a Pipeline mostly
    // runs one size after another, so describing the same chunks again is saved.
    std::optional<PlanRequest> last_request_;
    PlanDecision last_decision_;
    // The latest plan_text and what it was made of: formatted again only where that changes.
    // Formatting it before every run's first command cost most of the plan's host time on CUDA:
    // 10 us at four chunks, against 3 us at one chunk, with no lanes to describe (a 16 MiB
    // stream, H200 host, caches cold from the program's own work between runs).
    struct PlanText {
        std::tuple<PipelineMode, std::size_t, double, bool> made_of;
        std::string how;
    };
    std::optional<PlanText> plan_text_;
    double record_ms_;  // host cost of one timed event, as measured
};

}  // namespace dualrt::detail
