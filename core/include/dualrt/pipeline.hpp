/// @file
/// Pipeline: a host -> device -> compute -> device -> host job cut into chunks whose copies and
/// compute overlap on two or three queues.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>
#include <dualrt/host_buffer.hpp>
#include <dualrt/queue.hpp>
#include <dualrt/trace.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dualrt {

/// How many queues a Pipeline runs its stages on.
enum class PipelineMode {
    /// Three where the device has two or more copy engines (or does not say), else two.
    automatic,
    /// One copy queue (uploads and downloads) beside one compute queue, the scheme of the OpenCL
    /// guide.
    two_queues,
    /// Upload, compute and download queues, so both copy directions run at once.
    three_queues
};
/// The mode in words: "automatic", "two queues" or "three queues".
const char* to_string(PipelineMode mode) noexcept;

/// How the input is cut: a number of chunks, a number of elements per chunk, or automatic, which
/// runs the first chunks at two trial sizes, fits the time of each stage as a fixed cost plus a
/// per-byte cost, and picks the chunk count the model predicts fastest for the rest.
class Chunking {
public:
    /// Chosen by the model after two trial sizes (the default).
    static Chunking automatic() { return Chunking(Kind::automatic, 0); }
    /// The input cut into `chunks` chunks (at least 1) of n / chunks elements, rounded up; the
    /// last one is shorter where needed.
    static Chunking count(std::size_t chunks) { return Chunking(Kind::count, chunks); }
    /// Chunks of `per_chunk` elements, the last one shorter where needed (at least 1).
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

/// How a Pipeline runs: its queues, its chunks, and how much it keeps on the device.
struct PipelineOptions {
    PipelineMode mode = PipelineMode::automatic;  ///< two queues, three, or chosen per device
    Chunking chunking = Chunking::automatic();    ///< how the input is cut into chunks
    /// Chunks in flight on the device, each with its own device buffers: device memory use is
    /// depth x chunk, whatever the input size. 0: one per queue (2 or 3).
    std::size_t depth = 0;
    /// The compute function reads and writes one device buffer per chunk (input == output); needs
    /// the same element type on both sides. Halves the device memory.
    bool in_place = false;
};

/// What the compute function gets for each chunk.
/// @tparam In the element type of the input
/// @tparam Out the element type of the output
template <typename In, typename Out>
struct Chunk {
    Queue& queue;        ///< the compute queue: enqueue this chunk's work here, nowhere else
    Buffer<In> input;    ///< the chunk's input, already on the device when the work runs
    Buffer<Out> output;  ///< where the chunk's result must be written (== input when in_place)
    std::size_t index;   ///< 0, 1, ... in input order
    std::size_t offset;  ///< the chunk's first element within the whole input
    std::size_t size() const noexcept { return input.size(); }  ///< the chunk's elements
};

/// What a run measured, all from device events except where said.
struct PipelineReport {
    PipelineMode mode = PipelineMode::automatic;  ///< the mode used (never automatic)
    std::size_t queues = 0;          ///< queues used: 2 or 3
    std::size_t chunks = 0;          ///< chunks run, the calibration chunks of "auto" included
    std::size_t chunk_elements = 0;  ///< elements per chunk after calibration (last may be shorter)
    std::size_t depth = 0;           ///< chunks in flight (PipelineOptions::depth, resolved)
    std::size_t device_bytes = 0;    ///< device memory the run's chunk buffers took
    bool staged_input = false;       ///< pageable host input went through pinned staging
    bool staged_output = false;      ///< pageable host output went through pinned staging
    std::string chunking;            ///< how the chunk size was chosen, in words

    /// @name Device time of each stage, summed over all chunks
    /// @{
    double upload_ms = 0.0;    ///< host to device copies
    double compute_ms = 0.0;   ///< the compute function's work
    double download_ms = 0.0;  ///< device to host copies
    /// @}
    double serial_ms = 0.0;    ///< upload + compute + download: the same work without overlap
    double bound_ms = 0.0;     ///< the busiest stage: no schedule of these stages can be faster
    double measured_ms = 0.0;  ///< first upload's start to last download's end
    double host_ms = 0.0;      ///< wall-clock time of the whole run() call, host clock

    /// serial_ms / measured_ms: what the overlap bought (0 before a run).
    double speedup() const { return measured_ms > 0.0 ? serial_ms / measured_ms : 0.0; }
    /// bound_ms / measured_ms: how close the run came to the busiest stage's time (0 before a
    /// run).
    double efficiency() const { return measured_ms > 0.0 ? bound_ms / measured_ms : 0.0; }

    Timeline timeline;  ///< one track per queue, one span per stage of each chunk
    std::string summary() const;  ///< a few readable lines
};

/// Runs chunked jobs on one device. Create once and reuse: the queues and device buffers are
/// kept between runs. One run at a time per Pipeline (run() is not re-entrant); separate
/// Pipelines may run concurrently.
///
/// @code{.cpp}
/// dualrt::Pipeline pipeline(device);
/// auto report = pipeline.run(input, output, [&](dualrt::Chunk<float, float>& c) {
///     c.queue.launch(kernel, {c.size()}, {}, c.input, c.output, std::uint32_t(c.size()));
/// });
/// @endcode
///
/// Host memory from a HostBuffer is copied by DMA directly; a pointer or std::vector is staged
/// through pinned buffers (the host memcpy overlaps the copies too). run() returns when every
/// chunk's result is in `output`. An exception from the compute function, or a failing copy, is
/// rethrown after the work already enqueued has drained, so no device work outlives the call.
class Pipeline {
public:
    /// A pipeline on `device`, with its queues. Throws Errc::invalid_argument for an empty
    /// device, depth 1 (which cannot overlap anything) or a chunk count or size of 0.
    explicit Pipeline(Device device, PipelineOptions options = {});
    ~Pipeline();  ///< releases the queues and device buffers
    Pipeline(Pipeline&&) noexcept;             ///< takes over the other's queues and buffers
    Pipeline& operator=(Pipeline&&) noexcept;  ///< takes over the other's queues and buffers

    const Device& device() const;            ///< the device the pipeline runs on
    const PipelineOptions& options() const;  ///< the options it was made with
    PipelineMode mode() const;  ///< the mode runs will use (automatic resolved)

    /// Runs `compute` over `count` elements from `input` to `output`, chunk by chunk.
    /// @param input   `count` elements of host memory (pageable: staged through pinned buffers)
    /// @param output  room for `count` elements; holds every chunk's result on return
    /// @param count   the number of elements
    /// @param compute called as `compute(Chunk<In, Out>&)` once per chunk, to enqueue the chunk's
    ///                work on Chunk::queue
    /// @return what the run measured
    template <typename In, typename Out, typename Fn>
    PipelineReport run(const In* input, Out* output, std::size_t count, Fn&& compute) {
        return run_erased(host_side(input, count, false), host_side(output, count, false),
                          count, sizeof(In), sizeof(Out), erase<In, Out>(compute));
    }
    /// The same with std::vectors, which must hold the same number of elements (else
    /// Errc::invalid_argument).
    template <typename In, typename Out, typename Fn>
    PipelineReport run(const std::vector<In>& input, std::vector<Out>& output, Fn&& compute) {
        check_sizes(input.size(), output.size());
        return run(input.data(), output.data(), input.size(), std::forward<Fn>(compute));
    }
    /// The same with pinned host memory, copied by DMA directly; the two must hold the same
    /// number of elements (else Errc::invalid_argument).
    template <typename In, typename Out, typename Fn>
    PipelineReport run(const HostBuffer<In>& input, const HostBuffer<Out>& output, Fn&& compute) {
        check_sizes(input.size(), output.size());
        return run_erased(host_side(input.data(), input.size(), true),
                          host_side(output.data(), output.size(), true), input.size(),
                          sizeof(In), sizeof(Out), erase<In, Out>(compute));
    }

    /// The type-free chunk the typed one is made from. Internal.
    struct ChunkBytes {
        Queue* queue;        ///< Chunk::queue
        BufferView input;    ///< Chunk::input, untyped
        BufferView output;   ///< Chunk::output, untyped
        std::size_t index;   ///< Chunk::index
        std::size_t offset;  ///< Chunk::offset
    };
    /// One side of a run in host memory, untyped. Internal.
    struct HostSide {
        void* data;         ///< the first byte
        std::size_t bytes;  ///< the length in bytes
        bool pinned;        ///< from a HostBuffer (copied by DMA), else staged
    };

private:
    template <typename T>
    static HostSide host_side(const T* data, std::size_t count, bool pinned) {
        return HostSide{const_cast<void*>(static_cast<const void*>(data)), count * sizeof(T),
                        pinned};
    }
    template <typename In, typename Out, typename Fn>
    static std::function<void(ChunkBytes&)> erase(Fn& compute) {
        return [&compute](ChunkBytes& c) {
            Chunk<In, Out> chunk{*c.queue, Buffer<In>(c.input), Buffer<Out>(c.output), c.index,
                                 c.offset};
            compute(chunk);
        };
    }
    static void check_sizes(std::size_t input, std::size_t output);
    PipelineReport run_erased(HostSide input, HostSide output, std::size_t count,
                              std::size_t in_elem, std::size_t out_elem,
                              const std::function<void(ChunkBytes&)>& compute);

    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace dualrt
