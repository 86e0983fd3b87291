// The native baselines the benchmarks measure dualrt against: the same operations written with
// plain CUDA driver calls or plain OpenCL calls, on the device dualrt selected, in the same
// process run. Each backend's baseline is a module (libdualrt_native_cuda.so /
// libdualrt_native_opencl.so) that the benchmarks load at run time, so the benchmarks themselves
// link no vendor library.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dualrt::bench {

enum class Direction { h2d, d2h, d2d, both };  // both: h2d and d2h at once, on two queues
enum class HostMemory { pageable, pinned };

// Microseconds per launch of the built-in `empty` kernel (one work-group of one work-item).
struct LaunchCost {
    double enqueue_us = 0.0;     // host time per launch over a burst of back-to-back launches
    double round_trip_us = 0.0;  // host time of one launch followed by waiting for it
    // OpenCL only (0 elsewhere): the same two on a queue made with CL_QUEUE_PROFILING_ENABLE, as
    // dualrt's queues are. The plain queue above is what a plain program uses.
    double profiling_enqueue_us = 0.0;
    double profiling_round_trip_us = 0.0;
    // OpenCL only (0 elsewhere): a burst that keeps every launch's own cl_event (released after
    // the burst, untimed), on the plain queue and on the profiling one: what a plain program that
    // holds its events pays.
    double kept_enqueue_us = 0.0;
    double profiling_kept_enqueue_us = 0.0;
};

// Host microseconds per launch of the built-in `empty` kernel (one work-item) in batches of
// launches, from the first enqueue until the queue has run them all (the batch's enqueue alone,
// too), median over the batches: enqueued one by one, and recorded once and replayed as one
// unit. 0 where the baseline has no replay (OpenCL without cl_khr_command_buffer).
struct ReplayCost {
    double plain_enqueue_us = 0.0, plain_us = 0.0;
    double replay_enqueue_us = 0.0, replay_us = 0.0;
    std::string replay;  // how it replays: "CUDA graph (stream capture)", ...
};

// Sweeps of the built-in jacobi_rows over a `width` x `height` grid of floats on the device
// (rows 0 and height - 1 fixed; width a multiple of jacobi_local[0], height - 2 of
// jacobi_local[1]), ping-ponging between two grids: `steps` launches per batch,
// timed as ReplayCost's batches are. The grid starts as `grid` before every batch; `result`
// receives the last batch's (the sweeps' output, after an even number of steps, in the first
// grid), for the caller to compare.
inline constexpr std::uint32_t jacobi_local[2] = {64, 4};  // its work-groups, on both sides
struct JacobiJob {
    const float* grid = nullptr;
    float* result = nullptr;
    std::uint32_t width = 0, height = 0;
    int steps = 0;
    int repetitions = 0;
};

// A streamed stencil job: the built-in stencil_blur3x3 (kernels/cl/stencil.cl) over a `width` x
// `height` float image in host memory, in blocks of `rows_per_chunk` rows (the last one shorter
// where needed), each block uploaded with the halo row above and below it that the image has.
struct StencilJob {
    const float* image = nullptr;  // width * height floats, pageable (the caller's)
    float* output = nullptr;       // room for width * height floats; holds the blur on return
    std::size_t width = 0;
    std::size_t height = 0;
    std::size_t rows_per_chunk = 0;
    int lanes = 4;                 // queues taking the blocks in turn
    HostMemory host = HostMemory::pageable;
    int repetitions = 1;
};

// Launch geometry of the `empty` launches, the same for dualrt and the baselines.
inline constexpr std::size_t empty_global_size = 1;
inline constexpr std::size_t empty_local_size = 1;
// Round trips timed one by one per repetition: min(launches, this), so a burst of 10,000
// launches does not mean 10,000 waits per repetition.
inline constexpr int max_round_trips_per_repetition = 1000;

// A two-queue stream of the triad c = a + s * b (the `stream` benchmark): `elements` floats per
// array, cut into blocks of `block_elements` (the last block may be shorter). Block k runs on
// queue k % 2: upload a_k, upload b_k, the built-in triad kernel, download c_k. Each queue has
// its own device buffers of one block per array, which its next block reuses (the queue is in
// order), so host memory streams through while both copy engines work, one per direction.
struct StreamJob {
    const float* a = nullptr;  // the inputs, `elements` each; copied into the run's host memory
    const float* b = nullptr;  // before the timing
    float* c = nullptr;        // receives the last timed run's output, for the caller to check
    std::size_t elements = 0;
    std::size_t block_elements = 0;
    float scale = 0.0f;        // s
    int repetitions = 0;       // timed runs, after one warm-up run
    // For streams of several devices run side by side: called in every run, the warm-up
    // included, just before its clock starts (a barrier, so that the devices' runs start
    // together and overlap whole); and, where set, given each timed run's wall time in order
    // (the whole job's run is then the slowest device's).
    std::function<void()> before_each_run;
    std::vector<double>* timed_wall_ms = nullptr;
};

// Medians over the timed runs of a stream.
struct StreamTiming {
    double wall_ms = 0.0;     // host clock from the first enqueue until both queues have finished
    double device_ms = 0.0;   // events: a start on queue 0 (queue 1 waits for it) to the later end
    double enqueue_us = 0.0;  // host time of the loop that enqueues the blocks, per block
};

class NativeBaseline {
public:
    virtual ~NativeBaseline() = default;
    virtual std::string describe() const = 0;  // e.g. "plain CUDA driver API (cuMemcpyHtoDAsync)"

    // Median device time (events) in ms of one copy of `bytes` in `direction` over `repetitions`
    // timed runs after a warm-up. Host memory is pageable (a std::vector, touched) or pinned
    // (cuMemHostAlloc / CL_MEM_ALLOC_HOST_PTR mapped); ignored for d2d. For `both`, `bytes` go
    // each way at once (host to device on one queue, device to host on another, the second
    // queue waiting for the start event): the time from that event to the end of the later copy.
    // Before timing, a host -> device -> device -> host round trip of random bytes is compared
    // with what was sent; a mismatch throws, so a broken copy cannot report a number.
    virtual double copy_ms(Direction direction, HostMemory host, std::size_t bytes,
                           int repetitions) = 0;

    // Enqueue cost and round trip of the built-in `empty` kernel, after a warm-up. Enqueue: the
    // host time of a burst of `launches` launches (no event kept), divided by `launches`, median
    // over `repetitions` bursts; each burst is waited for outside its timing. Round trip: the host
    // time of one launch plus waiting for it, median over repetitions x
    // min(launches, max_round_trips_per_repetition) single round trips.
    virtual LaunchCost launch_cost(int launches, int repetitions) = 0;

    // A hand-written pipeline: `elements` floats from pinned host memory to the device, the
    // built-in busy(data, n, iterations) kernel in place, back to pinned host memory, cut into
    // `chunks` chunks on `queues` queues (1: serial on one queue; 2: copy + compute; 3: upload,
    // compute, download, with events between the stages). Median ms of device time (events)
    // from the first upload to the last download over `repetitions` runs after a warm-up.
    // Chunk c is elements [c*n/chunks, (c+1)*n/chunks); on OpenCL each boundary is rounded
    // down to CL_DEVICE_MEM_BASE_ADDR_ALIGN (the kernel gets a sub-buffer per chunk). Input
    // and output are separate pinned arrays; the output is checked against the host.
    virtual double pipeline_ms(std::size_t elements, unsigned iterations, int chunks, int queues,
                               int repetitions) = 0;

    // The stream of `job` written by hand: two CUDA streams / two OpenCL queues (with profiling,
    // for the events), triad launched in work-groups of detail::triad_local_size, the host arrays
    // a, b and c held as one allocation each: pinned (cuMemHostAlloc / a mapped
    // CL_MEM_ALLOC_HOST_PTR buffer) or pageable (std::vector, touched), copied per block from
    // and to pointers into them. Device buffers are poisoned before the warm-up and c before
    // every run; every run's c is spot-checked (first and last element of every block and
    // about 4096 more) and a wrong one throws. Copies the last run's c to job.c.
    virtual StreamTiming stream_triad(HostMemory host, const StreamJob& job) = 0;
    // The stencil job streamed by hand the way the CUDA guide streams work: `lanes` queues
    // (streams) take the blocks in turn, each block's upload, kernel and download in order on its
    // own queue with device buffers of its own, no events between them. Pageable: each lane has
    // a pinned input and output buffer that the host fills and empties with plain memcpy, waiting
    // for the lane's previous block before reusing them. Pinned: the image and the output are
    // copied into and out of pinned memory of the module's own outside the timing, and the blocks
    // move by DMA straight from and to it. Returns the median host wall time in ms of the whole
    // job (first block's memcpy or upload to the last block's result in host memory) over
    // `repetitions` runs after a warm-up; job.output holds the result (checked by the caller).
    virtual double stencil_ms(const StencilJob& job) = 0;
    // `launches` launches of `empty` per batch, `repetitions` timed batches after a warm-up
    // (ReplayCost), on a queue without profiling, as a plain program makes it.
    virtual ReplayCost replay_cost(int launches, int repetitions) = 0;
    // The sweeps of `job` launched one by one (the grids fixed as arguments of two kernel
    // objects on OpenCL, set once, as a hand-written solver does) and replayed from a CUDA graph
    // or an OpenCL command buffer (0 where there is none), per launch.
    virtual ReplayCost jacobi_replay_cost(const JacobiJob& job) = 0;

    // The hand-written copy of `bytes` between this device and `peer`, another device of the
    // same backend: from this device to the peer (`outwards`) or back. CUDA: cuMemcpyPeerAsync
    // on a stream of this device's primary context, peer access enabled both ways where
    // cuDeviceCanAccessPeer allows it (as dualrt's peer copies do). Timed the way bandwidth
    // --cross times dualrt's copy between devices: host clock around the copy and a stream
    // synchronize, median of `repetitions` after a warm-up; random bytes are sent and checked
    // first. Backends without peer copies (OpenCL) throw Errc::unavailable.
    virtual double peer_copy_ms(const Device& peer, bool outwards, std::size_t bytes,
                                int repetitions) {
        (void)outwards, (void)bytes, (void)repetitions;
        ErrorInfo info;
        info.errc = Errc::unavailable;
        info.backend = to_string(peer.backend());
        info.call = "NativeBaseline::peer_copy_ms";
        info.detail = "this backend has no peer copies to compare with";
        throw Error(std::move(info));
    }
};

// Loads the baseline module of device's backend (next to the running executable, in
// DUALRT_PLUGIN_PATH, or next to the backend module) and creates it for that device; `device`
// must outlive it (on CUDA its kernels belong to the device's modules). Throws dualrt::Error
// (Errc::unavailable) with the reason when the module cannot be loaded.
std::unique_ptr<NativeBaseline> load_native_baseline(const Device& device);

}  // namespace dualrt::bench
