// Helpers both native baseline modules share: medians, the chunk split of the pipeline, the test
// pattern that proves a copy moved the right bytes, the host reference of the busy kernel, and
// the blocks of the streamed stencil.
// Header-only: each module carries its own copy, and the bandwidth benchmark uses the same pattern
// and median for its dualrt side.
#pragma once

#include "native_baseline.hpp"

#include <dualrt/error.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dualrt::bench::detail {

// Work-items per work-group of the pipeline's busy launches (global is rounded up to it).
inline constexpr std::size_t busy_local_size = 256;
// Untimed runs before the timed ones: the first touches of memory, lazy driver set-up.
inline constexpr int warmup_runs = 2;

inline double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    if (values.size() % 2 == 1) return *middle;
    const double upper = *middle;
    const double lower = *std::max_element(values.begin(), middle);
    return (lower + upper) / 2.0;
}

// The median of one figure (`field`) over rounds that each measured several.
template <typename Round>
double median_of(const std::vector<Round>& rounds, double Round::*field) {
    std::vector<double> values;
    for (const Round& round : rounds) values.push_back(round.*field);
    return median(std::move(values));
}

// Host time of batches of `per_batch` commands: `prepare()` (untimed), `enqueue()`, then
// `finish()`; per command, the enqueue alone and until finished, medians over `repetitions`
// batches after a warm-up. Replay costs (ReplayCost) are two of these.
struct BatchTimes {
    double enqueue_us = 0.0, total_us = 0.0;
};
template <typename Prepare, typename Enqueue, typename Finish>
BatchTimes time_batches(int per_batch, int repetitions, Prepare&& prepare, Enqueue&& enqueue,
                        Finish&& finish) {
    using Clock = std::chrono::steady_clock;
    const auto us = [](Clock::duration d) {
        return std::chrono::duration<double, std::micro>(d).count();
    };
    std::vector<double> enqueues, totals;
    for (int r = 0; r <= repetitions; ++r) {  // r == 0: the warm-up
        prepare();
        const auto begin = Clock::now();
        enqueue();
        const auto enqueued = Clock::now();
        finish();
        const auto end = Clock::now();
        if (r == 0) continue;
        enqueues.push_back(us(enqueued - begin) / per_batch);
        totals.push_back(us(end - begin) / per_batch);
    }
    return {median(std::move(enqueues)), median(std::move(totals))};
}

[[noreturn]] inline void invalid_argument(const std::string& backend, const std::string& call,
                                          const std::string& detail) {
    ErrorInfo info;
    info.errc = Errc::invalid_argument;
    info.backend = backend;
    info.call = call;
    info.detail = detail;
    throw Error(std::move(info));
}

// A copy that moved the wrong bytes (or none) must not report a bandwidth.
[[noreturn]] inline void wrong_result(const std::string& backend, const std::string& what,
                                      const std::string& detail) {
    ErrorInfo info;
    info.errc = Errc::backend_failure;
    info.backend = backend;
    info.call = what;
    info.detail = detail;
    info.context = "native baseline self-check";
    throw Error(std::move(info));
}

// Chunk c of `chunks` covers elements [bounds[c], bounds[c + 1]): c*n/chunks rounded down to a
// multiple of `align` elements (OpenCL sub-buffers must start on the device's base address
// alignment; CUDA passes 1). Throws when a chunk would be empty.
inline std::vector<std::size_t> chunk_bounds(const std::string& backend, std::size_t n,
                                             int chunks, std::size_t align) {
    std::vector<std::size_t> bounds(static_cast<std::size_t>(chunks) + 1, n);
    for (int c = 0; c < chunks; ++c) {
        const std::size_t exact = static_cast<std::size_t>(
            static_cast<unsigned long long>(n) * static_cast<unsigned>(c) /
            static_cast<unsigned>(chunks));
        bounds[static_cast<std::size_t>(c)] = exact / align * align;
    }
    for (std::size_t c = 0; c + 1 < bounds.size(); ++c)
        if (bounds[c + 1] <= bounds[c])
            invalid_argument(backend, "NativeBaseline::pipeline_ms",
                             std::to_string(n) + " elements cannot be cut into " +
                                 std::to_string(chunks) + " non-empty chunks starting on " +
                                 std::to_string(align) + "-element boundaries");
    return bounds;
}

inline void check_pipeline_arguments(const std::string& backend, std::size_t elements,
                                     int chunks, int queues, int repetitions) {
    const std::string call = "NativeBaseline::pipeline_ms";
    if (elements == 0) invalid_argument(backend, call, "elements must be > 0");
    if (chunks < 1) invalid_argument(backend, call, "chunks must be >= 1");
    if (queues < 1 || queues > 3)
        invalid_argument(backend, call, "queues must be 1, 2 or 3, not " + std::to_string(queues));
    if (repetitions < 1) invalid_argument(backend, call, "repetitions must be >= 1");
    // busy takes its element count as a uint.
    if (elements / static_cast<std::size_t>(chunks) + 1 > 0xffffffffu)
        invalid_argument(backend, call, "a chunk of more than 2^32-1 elements");
}

inline void check_copy_arguments(const std::string& backend, std::size_t bytes, int repetitions) {
    if (bytes == 0) invalid_argument(backend, "NativeBaseline::copy_ms", "bytes must be > 0");
    if (repetitions < 1)
        invalid_argument(backend, "NativeBaseline::copy_ms", "repetitions must be >= 1");
}

inline void check_launch_arguments(const std::string& backend, int launches, int repetitions) {
    if (launches < 1 || repetitions < 1)
        invalid_argument(backend, "NativeBaseline::launch_cost",
                         "launches and repetitions must be >= 1");
}

// Bytes from a xorshift generator: every call with another seed gives other data, so a copy
// that left an earlier run's bytes in place is caught.
inline void fill_pattern(void* data, std::size_t bytes, std::uint32_t seed) {
    std::uint32_t state = seed * 2654435761u + 1u;
    auto* out = static_cast<unsigned char*>(data);
    std::size_t i = 0;
    for (; i + 4 <= bytes; i += 4) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        std::memcpy(out + i, &state, 4);
    }
    for (; i < bytes; ++i) out[i] = static_cast<unsigned char>(i * 131u + seed);
}

// "" when equal, else where the first difference is.
inline std::string compare_bytes(const void* expected, const void* actual, std::size_t bytes) {
    if (std::memcmp(expected, actual, bytes) == 0) return {};
    const auto* a = static_cast<const unsigned char*>(expected);
    const auto* b = static_cast<const unsigned char*>(actual);
    std::size_t i = 0;
    while (i < bytes && a[i] == b[i]) ++i;
    return "byte " + std::to_string(i) + " of " + std::to_string(bytes) + " is " +
           std::to_string(b[i]) + ", expected " + std::to_string(a[i]);
}

// The busy kernel on the host: fma rounds once, as fmaf/fma do on the device, so it matches bit
// for bit.
inline float busy_reference(float v, unsigned iterations) {
    for (unsigned k = 0; k < iterations; ++k) v = std::fma(v, 0.9999f, 0.0001f);
    return v;
}

// The input of the pipeline: values in [0, 1) that differ from element to element.
inline float pipeline_input(std::size_t i) {
    return static_cast<float>((i * 2654435761u) % 1000003u) / 1000003.0f;
}

// Checks the pipeline's output at the first and last element of every chunk (where a wrong offset
// shows) and at about 4096 evenly spread ones, against the host reference.
inline void check_pipeline_output(const std::string& backend, const float* output,
                                  const std::vector<std::size_t>& bounds, unsigned iterations) {
    const std::size_t n = bounds.back();
    std::vector<std::size_t> checked;
    for (std::size_t c = 0; c + 1 < bounds.size(); ++c) {
        checked.push_back(bounds[c]);
        checked.push_back(bounds[c + 1] - 1);
    }
    const std::size_t stride = std::max<std::size_t>(n / 4096, 1);
    for (std::size_t i = 0; i < n; i += stride) checked.push_back(i);
    for (std::size_t i : checked) {
        const float expected = busy_reference(pipeline_input(i), iterations);
        if (output[i] != expected)
            wrong_result(backend, "NativeBaseline::pipeline_ms",
                         "element " + std::to_string(i) + " of " + std::to_string(n) + " is " +
                             std::to_string(output[i]) + ", expected " +
                             std::to_string(expected));
    }
}

// Work-items per work-group of the stencil launches: 64 along a row (coalesced), 4 rows.
inline constexpr std::size_t stencil_local_x = 64;
inline constexpr std::size_t stencil_local_y = 4;

// Block b of a streamed stencil job: its own rows and the halo rows it is uploaded with.
struct StencilBlock {
    std::size_t first_row = 0;  // the block's own first row in the image
    std::size_t rows = 0;       // its own rows
    std::size_t halo_top = 0;   // rows above it that are uploaded too (0 at the image's top)
    std::size_t halo_bottom = 0;
    std::size_t in_first_row() const { return first_row - halo_top; }
    std::size_t in_rows() const { return halo_top + rows + halo_bottom; }
};

inline StencilBlock stencil_block(const StencilJob& job, std::size_t b) {
    StencilBlock block;
    block.first_row = b * job.rows_per_chunk;
    block.rows = std::min(job.rows_per_chunk, job.height - block.first_row);
    block.halo_top = block.first_row > 0 ? 1 : 0;
    block.halo_bottom = block.first_row + block.rows < job.height ? 1 : 0;
    return block;
}

// A lane's pinned buffers for a staged (pageable) stencil job, and the block whose result is
// still in its output buffer.
struct StagedLane {
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    unsigned char* in = nullptr;
    unsigned char* out = nullptr;
    std::size_t pending = none;
};

// One timed run of a streamed stencil job, the host's side of it, which both native baselines
// share: blocks go to the lanes in turn; with `staged` lanes, a lane's pinned buffers are reused
// once its previous block has landed (`wait_lane(l)`) and that block's result is copied out, and
// the next block's rows are copied in by plain memcpy. `enqueue(l, block, source, destination)`
// enqueues the block's upload from `source`, its kernel and its download to `destination` on
// lane l (marking, for staged lanes, the point wait_lane waits for); `finish_lane(l)` waits for
// everything on an unstaged lane. `image` and `output` are where the blocks come from and go.
// Returns the host wall time in ms.
template <typename Enqueue, typename WaitLane, typename FinishLane>
double run_stencil_blocks(const StencilJob& job, const unsigned char* image,
                          unsigned char* output, std::vector<StagedLane>& lanes, bool staged,
                          Enqueue&& enqueue, WaitLane&& wait_lane, FinishLane&& finish_lane) {
    const std::size_t row_bytes = job.width * sizeof(float);
    const auto begin = std::chrono::steady_clock::now();
    const auto copy_out = [&](std::size_t l) {
        if (lanes[l].pending == StagedLane::none) return;
        wait_lane(l);
        const StencilBlock block = stencil_block(job, lanes[l].pending);
        std::memcpy(output + block.first_row * row_bytes, lanes[l].out, block.rows * row_bytes);
        lanes[l].pending = StagedLane::none;
    };
    const std::size_t blocks = (job.height + job.rows_per_chunk - 1) / job.rows_per_chunk;
    for (std::size_t b = 0; b < blocks; ++b) {
        const std::size_t l = b % lanes.size();
        const StencilBlock block = stencil_block(job, b);
        const unsigned char* source = image + block.in_first_row() * row_bytes;
        unsigned char* destination = output + block.first_row * row_bytes;
        if (staged) {
            copy_out(l);  // its buffers are free once its previous block has landed
            std::memcpy(lanes[l].in, source, block.in_rows() * row_bytes);
            source = lanes[l].in;
            destination = lanes[l].out;
        }
        enqueue(l, block, source, destination);
        if (staged) lanes[l].pending = b;
    }
    for (std::size_t l = 0; l < lanes.size(); ++l) {
        if (staged)
            copy_out(l);
        else
            finish_lane(l);
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin)
        .count();
}

inline void check_stencil_job(const std::string& backend, const StencilJob& job) {
    const std::string call = "NativeBaseline::stencil_ms";
    if (job.image == nullptr || job.output == nullptr)
        invalid_argument(backend, call, "the image and the output must not be null");
    if (job.width == 0 || job.height == 0 || job.rows_per_chunk == 0)
        invalid_argument(backend, call, "width, height and rows per chunk must be > 0");
    if (job.lanes < 1) invalid_argument(backend, call, "lanes must be >= 1");
    if (job.repetitions < 1) invalid_argument(backend, call, "repetitions must be >= 1");
    if (job.width > 0xffffffffu || job.height > 0xffffffffu)
        invalid_argument(backend, call, "the kernel takes the width and rows as uint");
}

}  // namespace dualrt::bench::detail
