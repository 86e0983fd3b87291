/// @file
/// PipelineReport: what one Pipeline run did and measured.
#pragma once

#include <dualrt/pipeline_devices.hpp>
#include <dualrt/trace.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace dualrt {

/// How many queues a Pipeline runs its stages on, and which stage goes where.
enum class PipelineMode {
    /// The library's choice (the default): lanes; and with the depth left to the library too,
    /// two of them where one stage keeps its engine busy most of a chunk's time, and on CUDA
    /// three queues where the timed stages are balanced. PipelineReport::mode says which a run
    /// used.
    automatic,
    /// One copy queue (uploads and downloads) beside one compute queue, the scheme of the OpenCL
    /// guide. Chunks compute one after the other on the compute queue; events order the stages.
    two_queues,
    /// Upload, compute and download queues, so both copy directions run at once. Chunks compute
    /// one after the other on the compute queue; events order the stages.
    three_queues,
    /// `depth` queues ("lanes"), each running whole chunks: a chunk's upload, compute and
    /// download go on one queue in order, and consecutive chunks on the next queue (the streams
    /// scheme of the CUDA guide). In-order queues keep a chunk's stages in order, so no event
    /// joins them; the copy engines and compute units still work on different chunks at once.
    /// Chunks on different lanes may compute at the same time.
    lanes
};
/// The mode in words: "automatic", "two queues", "three queues" or "lanes".
const char* to_string(PipelineMode mode) noexcept;

/// What a run measured. Device times come from timed events (Queue::record): around every stage
/// of the chunks that PipelineOptions::timing times, and at the run's start and end. Stage times
/// of the other chunks are estimated from the chunks this Pipeline has timed so far; `timing`
/// says which is which.
struct PipelineReport {
    PipelineMode mode = PipelineMode::automatic;  ///< the mode used (never automatic)
    std::size_t queues = 0;          ///< queues used
    std::size_t chunks = 0;          ///< chunks run
    std::size_t chunk_elements = 0;  ///< the largest chunk's own elements
    std::vector<std::size_t> chunk_sizes;  ///< every chunk's own elements, in array order
    std::size_t depth = 0;           ///< chunks in flight (PipelineOptions::depth, resolved)
    std::size_t device_bytes = 0;    ///< device memory the run's chunk buffers took
    std::size_t input_arrays = 0;    ///< host arrays per chunk going up
    std::size_t output_arrays = 0;   ///< host arrays per chunk coming back
    bool staged_input = false;       ///< some pageable input went through pinned staging
    bool staged_output = false;      ///< some pageable output went through pinned staging
    std::string chunking;            ///< how the chunks were chosen, in words
    /// PipelineOptions::replay: the run replayed the recorded commands of a run before it over
    /// the same layout, or recorded its own and replayed them.
    bool replayed = false;
    /// With PipelineOptions::replay, what the run did ("replayed", "recorded anew: ...") or why
    /// it ran its commands one by one instead; "" without it.
    std::string replay;

    /// Whether the stage fields below, and what is computed from them, were measured.
    StageTimes stage_times = StageTimes::not_measured;
    /// @name Device time of each stage, summed over all chunks
    /// Measured on the timed chunks, estimated for the others (see `stage_times` and `timing`).
    /// @{
    double upload_ms = 0.0;    ///< host to device copies
    double compute_ms = 0.0;   ///< the compute function's work
    double download_ms = 0.0;  ///< device to host copies
    /// @}
    double serial_ms = 0.0;    ///< upload + compute + download: the same work without overlap
    /// The time the busiest engine was busy: no schedule of these stages can be faster. With
    /// stages measured, the union of its timed spans (kernels of several lanes that ran side by
    /// side count once), so never above measured_ms; with estimates, the busiest stage's sum.
    double bound_ms = 0.0;
    /// First upload's start to last download's end: from timed events where the run timed
    /// chunks, else from the host clock, before the first enqueue to after the queues finished
    /// (timing says which).
    double measured_ms = 0.0;
    double host_ms = 0.0;      ///< wall-clock time of the whole run() call, host clock

    std::size_t timed_chunks = 0;  ///< chunks whose every stage was timed
    /// Which chunks were timed and where the stage times come from, in words.
    std::string timing;

    /// serial_ms / measured_ms: what the overlap bought. Given only where the stages were
    /// measured in this run (StageTimes::measured); time every chunk to have it.
    std::optional<double> speedup() const;
    /// bound_ms / measured_ms: the share of the run the busiest engine was busy, at most 1.
    /// Given only where the stages were measured in this run, as speedup().
    std::optional<double> efficiency() const;

    /// @name Several devices (empty and 0 for a Pipeline of one device)
    /// With several devices the fields above sum the stages over every device (measured where
    /// every device's were), measured_ms
    /// spans the first device's start to the last one's end (each device's own span is
    /// measured with its events; they are placed on the host clock), and bound_ms is the time
    /// of the busiest queues with the elements shared in proportion to each device's speed.
    /// @{
    std::vector<PipelineDeviceRow> devices;  ///< one row per device of the Pipeline, in order
    /// An estimate of the time the fastest device alone would take for the whole run: every
    /// element at the best per-device throughput of this run (PipelineDeviceRow::
    /// elements_per_ms). An estimate, not a measurement: run a Pipeline of that one device to
    /// measure it. It reads high where the devices share what limits them (a CPU device uses
    /// the host's cores and memory bandwidth, which pageable staging for a GPU needs too), since
    /// each device's throughput is measured while sharing; a device that ran few chunks reads
    /// slower than it is.
    double fastest_alone_ms = 0.0;
    /// fastest_alone_ms / measured_ms: what the other devices added, an estimate as
    /// fastest_alone_ms is (none with one device).
    std::optional<double> device_speedup() const;
    /// @}

    /// One track per stage (per queue with two queues), one span per stage of each timed chunk:
    /// every chunk with PipelineTiming::every_chunk. With several devices, each device's tracks
    /// in turn, named after it ("opencl 1 upload").
    Timeline timeline;
    std::string summary() const;  ///< a few readable lines
};

}  // namespace dualrt
