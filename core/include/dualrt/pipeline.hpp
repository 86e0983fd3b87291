// Pipeline: a host -> device -> compute -> device -> host job cut into chunks whose copies and
// compute overlap on two or three queues.
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

// two_queues: one copy queue (uploads and downloads) beside one compute queue, the scheme of the
// OpenCL guide. three_queues: upload, compute and download queues, so both copy directions run at
// once. automatic: three where the device has two or more copy engines (or does not say), else
// two.
enum class PipelineMode { automatic, two_queues, three_queues };
const char* to_string(PipelineMode mode) noexcept;

// How the input is cut: a number of chunks, a number of elements per chunk, or automatic, which
// runs the first chunks at two trial sizes, fits the time of each stage as a fixed cost plus a
// per-byte cost, and picks the chunk count the model predicts fastest for the rest.
class Chunking {
public:
    static Chunking automatic() { return Chunking(Kind::automatic, 0); }
    static Chunking count(std::size_t chunks) { return Chunking(Kind::count, chunks); }
    static Chunking elements(std::size_t per_chunk) { return Chunking(Kind::elements, per_chunk); }

    enum class Kind { automatic, count, elements };
    Kind kind() const noexcept { return kind_; }
    std::size_t value() const noexcept { return value_; }
    std::string str() const;  // "auto", "64 chunks", "1048576 elements per chunk"

private:
    Chunking(Kind kind, std::size_t value) : kind_(kind), value_(value) {}
    Kind kind_;
    std::size_t value_;
};

struct PipelineOptions {
    PipelineMode mode = PipelineMode::automatic;
    Chunking chunking = Chunking::automatic();
    // Chunks in flight on the device, each with its own device buffers: device memory use is
    // depth x chunk, whatever the input size. 0: one per queue (2 or 3).
    std::size_t depth = 0;
    // The compute function reads and writes one device buffer per chunk (input == output); needs
    // the same element type on both sides. Halves the device memory.
    bool in_place = false;
};

// What the compute function gets for each chunk.
template <typename In, typename Out>
struct Chunk {
    Queue& queue;        // the compute queue: enqueue this chunk's work here, nowhere else
    Buffer<In> input;    // the chunk's input, already on the device when the work runs
    Buffer<Out> output;  // where the chunk's result must be written (== input when in_place)
    std::size_t index;   // 0, 1, ... in input order
    std::size_t offset;  // the chunk's first element within the whole input
    std::size_t size() const noexcept { return input.size(); }
};

// What a run measured, all from device events except where said.
struct PipelineReport {
    PipelineMode mode = PipelineMode::automatic;  // the mode used (never automatic)
    std::size_t queues = 0;
    std::size_t chunks = 0;          // chunks run, the calibration chunks of "auto" included
    std::size_t chunk_elements = 0;  // elements per chunk after calibration (last may be shorter)
    std::size_t depth = 0;
    std::size_t device_bytes = 0;    // device memory the run's chunk buffers took
    bool staged_input = false;       // pageable host input went through pinned staging
    bool staged_output = false;      // pageable host output went through pinned staging
    std::string chunking;            // how the chunk size was chosen, in words

    // Device time of each stage, summed over all chunks.
    double upload_ms = 0.0;
    double compute_ms = 0.0;
    double download_ms = 0.0;
    double serial_ms = 0.0;    // upload + compute + download: the same work without overlap
    double bound_ms = 0.0;     // the busiest stage: no schedule of these stages can be faster
    double measured_ms = 0.0;  // first upload's start to last download's end
    double host_ms = 0.0;      // wall-clock time of the whole run() call, host clock

    double speedup() const { return measured_ms > 0.0 ? serial_ms / measured_ms : 0.0; }
    double efficiency() const { return measured_ms > 0.0 ? bound_ms / measured_ms : 0.0; }

    Timeline timeline;  // one track per queue, one span per stage of each chunk
    std::string summary() const;  // a few readable lines
};

// Runs chunked jobs on one device. Create once and reuse: the queues and device buffers are
// kept between runs. One run at a time per Pipeline (run() is not re-entrant); separate
// Pipelines may run concurrently.
//
//     dualrt::Pipeline pipeline(device);
//     auto report = pipeline.run(input, output, [&](dualrt::Chunk<float, float>& c) {
//         c.queue.launch(kernel, {c.size()}, {}, c.input, c.output, std::uint32_t(c.size()));
//     });
//
// Host memory from a HostBuffer is copied by DMA directly; a pointer or std::vector is staged
// through pinned buffers (the host memcpy overlaps the copies too). run() returns when every
// chunk's result is in `output`. An exception from the compute function, or a failing copy, is
// rethrown after the work already enqueued has drained, so no device work outlives the call.
class Pipeline {
public:
    explicit Pipeline(Device device, PipelineOptions options = {});
    ~Pipeline();
    Pipeline(Pipeline&&) noexcept;
    Pipeline& operator=(Pipeline&&) noexcept;

    const Device& device() const;
    const PipelineOptions& options() const;
    PipelineMode mode() const;  // the mode runs will use (automatic resolved)

    template <typename In, typename Out, typename Fn>
    PipelineReport run(const In* input, Out* output, std::size_t count, Fn&& compute) {
        return run_erased(host_side(input, count, false), host_side(output, count, false),
                          count, sizeof(In), sizeof(Out), erase<In, Out>(compute));
    }
    template <typename In, typename Out, typename Fn>
    PipelineReport run(const std::vector<In>& input, std::vector<Out>& output, Fn&& compute) {
        check_sizes(input.size(), output.size());
        return run(input.data(), output.data(), input.size(), std::forward<Fn>(compute));
    }
    template <typename In, typename Out, typename Fn>
    PipelineReport run(const HostBuffer<In>& input, const HostBuffer<Out>& output, Fn&& compute) {
        check_sizes(input.size(), output.size());
        return run_erased(host_side(input.data(), input.size(), true),
                          host_side(output.data(), output.size(), true), input.size(),
                          sizeof(In), sizeof(Out), erase<In, Out>(compute));
    }

    // The type-free chunk the typed one is made from. Internal.
    struct ChunkBytes {
        Queue* queue;
        BufferView input;
        BufferView output;
        std::size_t index;
        std::size_t offset;
    };
    struct HostSide {
        void* data;
        std::size_t bytes;
        bool pinned;
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
