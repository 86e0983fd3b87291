// The report of a run over several devices, put together from each device's own report (as a
// Pipeline of that device alone makes it): a row per device, the stages summed, the measured span
// and the busiest-queue bound of the whole run, the estimate of the fastest device alone, and each
// device's timeline tracks. Internal.
#pragma once

#include <dualrt/pipeline_report.hpp>

#include "run/run_timing.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace dualrt::detail {

// One device's share of a run.
struct DeviceShare {
    std::size_t index = 0;   // position in the Pipeline's devices
    std::string label;       // "'pthread-...' (opencl device 1)"
    std::string track;       // "opencl 1": prefixes its timeline tracks and spans
    const PipelineReport* report = nullptr;  // its own report, over its chunks
    const ResolvedTiming* timing = nullptr;  // the timing that report was made from
    const std::vector<std::size_t>* run_index = nullptr;  // its chunk i is the run's run_index[i]
    double start_ms = 0.0;   // when it started, after the first device did (host clock)
    std::size_t device_bytes = 0;
    bool staged_input = false, staged_output = false;
};

class DeviceReportMerger {
public:
    // `total` has the run's facts and chunks (make_report over the chunks dealt).
    explicit DeviceReportMerger(PipelineReport& total) : total_(total) {}
    void add(const DeviceShare& share);
    // The sums and estimates, once every device is added; `elements` in the run, `timing` how
    // they were timed, in words.
    void finish(std::size_t elements, std::string timing);

private:
    PipelineReport& total_;
    double bound_rate_ = 0.0;  // elements per ms of every device at its busiest queue's pace
    double best_rate_ = 0.0;   // the best device's elements per ms
    double end_ms_ = 0.0;      // the last device's end, from the first one's start
    std::size_t timed_ = 0;
    StageTimes stage_times_ = StageTimes::measured;  // the worst of the devices that ran chunks
};

// The lines PipelineReport::summary() adds for several devices: one per device and the speedup
// over the fastest alone ("" for a Pipeline of one device).
std::string device_rows_text(const PipelineReport& report);

}  // namespace dualrt::detail
