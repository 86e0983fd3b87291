/// @file
/// Where a Pipeline report's stage times come from, and what a Pipeline over several devices
/// reports for each of its devices.
#pragma once

#include <cstddef>
#include <string>

namespace dualrt {

/// Where a report's stage times come from, from the best to the worst: a run over several
/// devices is as good as its worst device.
enum class StageTimes {
    /// Every stage of every chunk was timed in this run: the stage sums, the bound and the
    /// figures made from them are measurements.
    measured,
    /// Some stages were not timed in this run; their times are estimated from the stages this
    /// Pipeline has timed before (PipelineReport::timing says how many). Sums made of
    /// estimates give no speedup or efficiency: an estimate too low would claim the impossible.
    estimated,
    /// Some stages were not timed and there is nothing to estimate them from yet (or the device
    /// runs its queues side by side, as a CPU device does, so its spans tell no stage's own
    /// time): the stage fields are 0 and mean nothing.
    not_measured
};
/// In words: "measured", "estimated" or "not measured".
const char* to_string(StageTimes times) noexcept;

/// One device's share of a run of a Pipeline over several devices (PipelineReport::devices).
struct PipelineDeviceRow {
    std::size_t device_index = 0;  ///< the device's position in Pipeline::devices()
    std::string device;            ///< e.g. "'NVIDIA H200' (cuda device 0)"
    std::size_t chunks = 0;        ///< chunks it ran
    std::size_t elements = 0;      ///< their own elements, summed
    /// Whether its stage times below were measured, estimated or neither.
    StageTimes stage_times = StageTimes::not_measured;
    double upload_ms = 0.0;    ///< device time of its uploads, summed (see PipelineReport::timing)
    double compute_ms = 0.0;   ///< device time of its compute, summed
    double download_ms = 0.0;  ///< device time of its downloads, summed
    /// Its first upload's start to its last download's end, measured with its own events.
    double measured_ms = 0.0;
    /// Where its work started, in ms after the run's first device started (host clock): the
    /// offset of its tracks in the run's timeline.
    double start_ms = 0.0;

    /// elements / measured_ms: its throughput in this run, while sharing the host with the
    /// other devices (0 when it ran no chunk).
    double elements_per_ms() const {
        return measured_ms > 0.0 ? static_cast<double>(elements) / measured_ms : 0.0;
    }
};

}  // namespace dualrt
