/// @file
/// Pipeline: a host -> device -> compute -> device -> host job cut into chunks whose copies and
/// compute overlap on several queues, over one or several host arrays per side.
#pragma once

#include <dualrt/device.hpp>
#include <dualrt/host_buffer.hpp>
#include <dualrt/pipeline_arrays.hpp>
#include <dualrt/pipeline_report.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dualrt {

/// How the arrays are cut: a number of chunks, a number of elements per chunk, or automatic.
class Chunking {
public:
    /// Chosen by the library for the arrays and the devices; the report's `chunking` says what
    /// it chose and why. The choice may change between versions.
    static Chunking automatic() { return Chunking(Kind::automatic, 0); }
    /// The arrays cut into `chunks` chunks (at least 1) of n / chunks elements, rounded up (to
    /// whole rows with a row halo); the last one is shorter where needed.
    static Chunking count(std::size_t chunks) { return Chunking(Kind::count, chunks); }
    /// Chunks of `per_chunk` elements (at least 1; a multiple of the row width with a row
    /// halo), the last one shorter where needed.
    static Chunking elements(std::size_t per_chunk) { return Chunking(Kind::elements, per_chunk); }

    /// Which of the three ways this is.
    enum class Kind {
        automatic,  ///< Chunking::automatic()
        count,      ///< Chunking::count(): value() is the number of chunks
        elements    ///< Chunking::elements(): value() is the elements per chunk
    };
    Kind kind() const noexcept { return kind_; }           ///< which of the three ways
    std::size_t value() const noexcept { return value_; }  ///< chunks or elements (0: automatic)
    std::string str() const;  ///< "auto", "64 chunks", "1048576 elements per chunk"

private:
    Chunking(Kind kind, std::size_t value) : kind_(kind), value_(value) {}
    Kind kind_;
    std::size_t value_;
};

/// Which chunks get timed events around their stages.
enum class PipelineTiming {
    /// The run's start and end, and a few windows of consecutive chunks, as many as cost about
    /// 2% of the runs' host time while the runs still choose their lanes, 0.5% once they have.
    /// The other chunks' stage times are estimated from the timed ones (the default).
    sampled,
    /// Every stage of every chunk (four timed events per chunk): exact stage sums and a timeline
    /// of every chunk, for a price per chunk that shows below about 1 MiB chunks.
    every_chunk
};
/// The timing in words: "sampled" or "every chunk".
const char* to_string(PipelineTiming timing) noexcept;

/// How a Pipeline runs: its queues, its chunks, and how much it keeps on the device.
struct PipelineOptions {
    PipelineMode mode = PipelineMode::automatic;  ///< lanes, two queues or three queues
    Chunking chunking = Chunking::automatic();    ///< how the arrays are cut into chunks
    /// Chunks in flight on the device, each with its own device buffers: device memory use is
    /// depth x chunk, whatever the arrays' size. With lanes it is also the number of queues.
    /// 0: the library's choice: 4 for lanes and three queues, 2 for two queues, and with lanes a
    /// run may use fewer of the 4 from what earlier runs measured (the report's `chunking` says
    /// so). A depth set here is used as set.
    std::size_t depth = 0;
    /// Output k is written into the device buffer of input k (input == output in the Chunk):
    /// needs as many output arrays as input arrays, of the same element sizes, and no halo.
    /// Saves the outputs' device memory.
    bool in_place = false;
    PipelineTiming timing = PipelineTiming::sampled;  ///< which chunks are timed
    /// Replay runs over a layout run before (recording.hpp, docs/recording.md): set it where the
    /// compute function only enqueues commands on `chunk.queue`, the same ones for a chunk on
    /// every run (kernels, scalar arguments, views), and does no host work that those commands
    /// read. Then a run over the layout of an earlier one (the same host arrays at the same
    /// addresses, the same chunks and queues) records every chunk's upload, compute and download,
    /// on every queue of the run, as one recording, and the runs after it replay that recording
    /// instead of enqueueing each command: on CUDA one graph launch a run. The contents of the
    /// host arrays may change between runs: a replay reads and writes them when it runs.
    ///
    /// Each replayed run still calls the compute function for every chunk, with nothing reaching
    /// the driver, and compares what it enqueues with the recording (a digest of the kernels,
    /// scalar bytes, views and geometry): where they differ (say, a scalar that changed) the run
    /// is recorded anew (updated in place where the backend can), so a replay never leaves stale
    /// results. Where the recorded commands write only the chunks' buffers and no output array is
    /// an input, the replay starts before that comparison, and a mismatch costs a second replay.
    /// What the digest cannot see, host work the commands depend on, is the declaration's to
    /// rule out.
    ///
    /// Runs replay in chunks under 256 KiB (larger ones gain nothing: the device sets their
    /// pace), with every array pinned (HostBuffer or registered memory), sampled timing, on a
    /// device that records as a CUDA graph or an OpenCL command buffer (DeviceInfo::recording),
    /// over one device (runs dealt to several devices do not); a layout's first run, which times
    /// its stages, runs as usual, as do the runs that time a window while the Pipeline still
    /// chooses its queues. PipelineReport::replay says what each run did, and why not where it
    /// did not replay. A compute function that enqueues what a recording cannot hold (a command
    /// on another queue, a host wait) makes run() throw Errc::invalid_argument naming it.
    bool replay = false;
};

/// Runs chunked jobs on one device. Create once and reuse: the queues, device buffers and pinned
/// staging buffers are kept between runs, and the library's choice of queues builds on what the
/// earlier runs measured. One run at a time per Pipeline: run() called again during a run (from
/// its compute function or another thread) throws Errc::invalid_argument and leaves the run in
/// progress unharmed; separate Pipelines may run concurrently.
///
/// @code{.cpp}
/// dualrt::Pipeline pipeline(device);
/// // c = a + s * b over three host arrays, no interleaving:
/// auto report = pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), [&](auto& chunk) {
///     auto [da, db] = chunk.inputs;
///     auto [dc] = chunk.outputs;
///     chunk.queue.launch(triad, {chunk.size()}, {}, da, db, dc, s, std::uint32_t(chunk.size()));
/// });
/// @endcode
///
/// Each chunk i covers elements [offset, offset + count) of every array. Host memory from a
/// HostBuffer is copied by DMA directly; a pointer or std::vector is staged through pinned
/// buffers (the host memcpy overlaps the copies too); one run may mix both. OpenCL pins memory
/// for its own context alone (CUDA's is pinned for every CUDA device): a HostBuffer of another
/// device is registered with this one the first time it is used here, once for the buffer's
/// life (milliseconds per 100 MiB), and staged only where the driver refuses. run() blocks until
/// every chunk's result is in the outputs. An exception from the compute function, or a failing
/// copy, is rethrown after the work already enqueued has drained, so no device work outlives the
/// call, and the pipeline stays usable. Over several devices, the first error stops the
/// dealing, every device's enqueued work drains, and it is rethrown as a dualrt::Error whose
/// context names the device (an exception of another type from the compute function becomes one
/// too, its what() in the detail).
class Pipeline {
public:
    /// A pipeline on `device`, with its queues. Throws Errc::invalid_argument for an empty
    /// device, depth 1 (which cannot overlap anything) or a chunk count or size of 0.
    explicit Pipeline(Device device, PipelineOptions options = {});
    /// A pipeline over several devices (`dualrt::devices()` for all of them), each with its own
    /// queues and buffers as above. A run deals its chunks from one shared list, in array order,
    /// to whichever device is ready for another, so that a slow device does not hold back a
    /// fast one. As the devices share the host, a helper may slow the fastest device down more
    /// than it adds: runs then go to the fastest device alone, and such a run is the run a
    /// Pipeline of that device would make (the report's `chunking` says which way a run went,
    /// and why). The compute function is the same for all: a chunk's `queue` is on its device,
    /// and `chunk.device_index` (its position in `devices`) picks the Kernel loaded on that
    /// device. It is called from one thread per device (for each device, in the order of its
    /// chunks; the first device's is the caller's, the others' are kept from run to run), so
    /// calls for different devices may overlap. The report has a row per device
    /// (PipelineReport::devices). One device in the list is a Pipeline of that device. Throws
    /// Errc::invalid_argument for an empty list, an empty Device, a device listed twice, or
    /// options the one-device constructor refuses.
    explicit Pipeline(std::vector<Device> devices, PipelineOptions options = {});
    ~Pipeline();  ///< waits for nothing (run() leaves no work behind); releases everything
    Pipeline(Pipeline&&) noexcept;             ///< takes over the other's queues and buffers
    Pipeline& operator=(Pipeline&&) noexcept;  ///< takes over the other's queues and buffers

    const Device& device() const;            ///< the device the pipeline runs on (the first)
    const std::vector<Device>& devices() const;  ///< every device it runs on, in order
    const PipelineOptions& options() const;  ///< the options it was made with
    /// The mode runs use (automatic resolved to lanes; a run may take three queues instead,
    /// see PipelineMode::automatic and PipelineReport::mode).
    PipelineMode mode() const;

    /// Runs `compute` over every chunk of the arrays: uploads each chunk of every input (with
    /// its halo), calls `compute(chunk)` to enqueue the chunk's work on chunk.queue, and
    /// downloads each chunk of every output. Blocks until all of it is done.
    /// @param in      dualrt::inputs(...), optionally .with_halo(...)
    /// @param out     dualrt::outputs(...), as many elements as the inputs
    /// @param compute called as `compute(Chunk<Inputs<I...>, Outputs<O...>>&)` once per chunk, in
    ///                chunk order, on the calling thread
    /// @return what the run measured
    /// @throws Error Errc::invalid_argument when the arrays differ in length, a pointer is null,
    ///         the halo or chunk size does not fit the arrays, in_place does not fit them, or
    ///         this Pipeline is already running
    template <typename... I, typename... O, typename Fn>
    PipelineReport run(const Inputs<I...>& in, const Outputs<O...>& out, Fn&& compute) {
        return run_erased(in.sides().data(), sizeof...(I), out.sides().data(), sizeof...(O),
                          in.halo(), erase<Chunk<Inputs<I...>, Outputs<O...>>>(compute));
    }

    /// Runs `compute` over `count` elements from one input array to one output array.
    /// @param input   `count` elements of host memory (pageable: staged through pinned buffers)
    /// @param output  room for `count` elements; holds every chunk's result on return
    /// @param count   the number of elements
    /// @param compute called as `compute(Chunk<In, Out>&)` once per chunk
    /// @return what the run measured
    template <typename In, typename Out, typename Fn>
    PipelineReport run(const In* input, Out* output, std::size_t count, Fn&& compute) {
        return run_one(HostArray<const In>(input, count, false),
                       HostArray<Out>(output, count, false), compute);
    }
    /// The same with std::vectors, which must hold the same number of elements (else
    /// Errc::invalid_argument).
    template <typename In, typename Out, typename Fn>
    PipelineReport run(const std::vector<In>& input, std::vector<Out>& output, Fn&& compute) {
        return run_one(detail::as_input(input), detail::as_output(output), compute);
    }
    /// The same with pinned host memory, copied by DMA directly; the two must hold the same
    /// number of elements (else Errc::invalid_argument).
    template <typename In, typename Out, typename Fn>
    PipelineReport run(const HostBuffer<In>& input, const HostBuffer<Out>& output, Fn&& compute) {
        return run_one(detail::as_input(input), detail::as_output(output), compute);
    }

private:
    using ChunkFunction = std::function<void(const detail::ChunkViews&)>;

    template <typename C, typename Fn>
    static ChunkFunction erase(Fn& compute) {
        return [&compute](const detail::ChunkViews& views) {
            C chunk = detail::ChunkMaker<C>::make(views);
            compute(chunk);
        };
    }
    // One input and one output: the two-array overloads, whose Chunk has `input` and `output`.
    template <typename In, typename Out, typename Fn>
    PipelineReport run_one(const HostArray<const In>& input, const HostArray<Out>& output,
                           Fn& compute) {
        const detail::HostSide in = detail::host_side(input), out = detail::host_side(output);
        return run_erased(&in, 1, &out, 1, Halo(), erase<Chunk<In, Out>>(compute));
    }
    PipelineReport run_erased(const detail::HostSide* inputs, std::size_t input_count,
                              const detail::HostSide* outputs, std::size_t output_count,
                              const Halo& halo, const ChunkFunction& compute);

    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace dualrt
