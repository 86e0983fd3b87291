#include "stream_bench.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>

namespace dualrt::samples::stream {
namespace {

using bench::detail::check_triad;
using bench::detail::poison;
using bench::detail::stream_queues;
using Clock = bench::detail::StreamClocks::Clock;

// xorshift64*: fast enough to fill 2 x 1 GiB of inputs in a few seconds, which std::mt19937 with
// a distribution is not.
std::uint64_t next_random(std::uint64_t& state) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
}

// Uniform in [0, 1), from the top 24 bits (a float's whole mantissa).
float unit_random(std::uint64_t& state) {
    return static_cast<float>(next_random(state) >> 40) * (1.0f / 16777216.0f);
}

// A prepared variant's `check`: the whole of c (read through `c_at`) against the host, with the
// variant's own s, unless a run found it wrong already.
template <typename CAt>
std::function<std::string()> whole_check(StreamJob& job, CAt c_at, float scale,
                                         std::shared_ptr<std::string> wrong) {
    return [&job, c_at, scale, wrong] {
        job.scale = scale;
        if (wrong->empty()) *wrong = check_triad(job, c_at, true);
        return *wrong;
    };
}

}  // namespace

StreamBench::StreamBench(Device device, std::size_t elements, int repetitions, std::uint64_t seed)
    : device_(std::move(device)),
      a_(elements),
      b_(elements),
      native_c_(elements),
      triad_(device_.kernel("triad")),  // built here, outside any timing
      random_state_(seed * 0x9E3779B97F4A7C15ull + 1) {
    for (Queue& queue : queues_) queue = device_.create_queue();
    for (std::size_t i = 0; i < elements; ++i) {
        a_[i] = 2.0f * unit_random(random_state_) - 1.0f;
        b_[i] = 2.0f * unit_random(random_state_) - 1.0f;
    }
    job_.a = a_.data();
    job_.b = b_.data();
    job_.elements = elements;
    job_.repetitions = repetitions;
}

float StreamBench::next_scale() { return 0.5f + 1.5f * unit_random(random_state_); }

void StreamBench::set_block(std::size_t block_elements) {
    job_.block_elements = block_elements;
    blocks_.clear();
    for (std::size_t q = 0; q < stream_queues; ++q)
        slots_[q] = {device_.alloc<float>(block_elements), device_.alloc<float>(block_elements),
                     device_.alloc<float>(block_elements)};
    for (std::size_t k = 0; k < bench::detail::block_count(job_); ++k) {
        Block block;
        block.index = k;
        block.offset = bench::detail::block_offset(job_, k);
        block.count = bench::detail::block_size(job_, k);
        block.queue = queues_[k % stream_queues];
        block.whole = slots_[k % stream_queues];
        block.exact = block.whole;
        if (block.count < block_elements)
            block.exact = {block.whole.a.view(0, block.count), block.whole.b.view(0, block.count),
                           block.whole.c.view(0, block.count)};
        blocks_.push_back(std::move(block));
    }
}

HostBlocks StreamBench::contiguous(float* a, float* b, float* c) const {
    HostBlocks host;
    for (const Block& block : blocks_) {
        host.a.push_back(a + block.offset);
        host.b.push_back(b + block.offset);
        host.c.push_back(c + block.offset);
    }
    return host;
}

void StreamBench::triad(Block& block) {
    block.queue.launch(triad_, {block.count}, {bench::detail::triad_local_size},
                       static_cast<std::uint32_t>(block.count), job_.scale, block.whole.a,
                       block.whole.b, block.whole.c);
}

void StreamBench::poison_device_buffers() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t q = 0; q < stream_queues; ++q) {
        for (const Buffer<float>* buffer : {&slots_[q].a, &slots_[q].b, &slots_[q].c})
            queues_[q].fill(*buffer, nan);
        queues_[q].finish();
    }
}

PreparedStream StreamBench::prepare(const HostBlocks& host, std::function<void(Block&)> enqueue) {
    const float scale = next_scale();
    for (const Block& block : blocks_) {
        std::memcpy(host.a[block.index], job_.a + block.offset, block.count * sizeof(float));
        std::memcpy(host.b[block.index], job_.b + block.offset, block.count * sizeof(float));
    }
    const auto c_at = [this, c = host.c](std::size_t i) {
        const std::size_t k = i / job_.block_elements;
        return c[k][i - blocks_[k].offset];
    };
    auto wrong = std::make_shared<std::string>();
    PreparedStream prepared;
    prepared.once = [this, host, enqueue = std::move(enqueue), c_at, scale,
                     wrong]() -> StreamTiming {
        job_.scale = scale;
        for (const Block& block : blocks_) poison(host.c[block.index], block.count);
        poison_device_buffers();
        bench::detail::StreamClocks clocks;
        clocks.begin = Clock::now();
        const Event start = queues_[0].record();
        for (std::size_t q = 1; q < stream_queues; ++q) queues_[q].wait(start);
        clocks.loop_begin = Clock::now();
        for (Block& block : blocks_) enqueue(block);
        clocks.loop_end = Clock::now();
        Event stops[stream_queues];
        for (std::size_t q = 0; q < stream_queues; ++q) stops[q] = queues_[q].record();
        for (Queue& queue : queues_) queue.finish();
        clocks.end = Clock::now();

        double device_ms = 0.0;
        for (const Event& stop : stops)
            device_ms = std::max(device_ms, Event::elapsed_ms(start, stop));
        if (wrong->empty()) *wrong = check_triad(job_, c_at, false);
        return bench::detail::stream_timing(clocks, device_ms, blocks_.size());
    };
    prepared.check = whole_check(job_, c_at, scale, wrong);
    return prepared;
}

PreparedStream StreamBench::prepare_run(const FillInputs& fill, float* c,
                                        std::function<double()> run) {
    const float scale = next_scale();
    fill(job_.a, job_.b, job_.elements);
    const auto c_at = [c](std::size_t i) { return c[i]; };
    auto wrong = std::make_shared<std::string>();
    PreparedStream prepared;
    prepared.once = [this, c, c_at, run = std::move(run), scale, wrong]() -> StreamTiming {
        job_.scale = scale;
        poison(c, job_.elements);
        bench::detail::StreamClocks clocks;
        clocks.begin = clocks.loop_begin = Clock::now();
        const double device_ms = run();
        clocks.loop_end = clocks.end = Clock::now();
        if (wrong->empty()) *wrong = check_triad(job_, c_at, false);
        StreamTiming timing = bench::detail::stream_timing(clocks, device_ms, 1);
        timing.enqueue_us = 0.0;  // the run's own loop: not timed apart
        return timing;
    };
    prepared.check = whole_check(job_, c_at, scale, wrong);
    return prepared;
}

std::vector<Measurement> StreamBench::measure_in_turns(
    const std::vector<PreparedStream>& streams) {
    const std::size_t n = streams.size();
    for (const PreparedStream& stream : streams)
        stream.once();  // first touches of memory and device buffers, lazy driver set-up
    std::vector<std::vector<StreamTiming>> runs(n);
    for (int round = 0; round < job_.repetitions; ++round)
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t which = (static_cast<std::size_t>(round) + i) % n;
            runs[which].push_back(streams[which].once());
        }
    std::vector<Measurement> measured(n);
    for (std::size_t i = 0; i < n; ++i) {
        using bench::detail::median_of;
        measured[i].timing = {median_of(runs[i], &StreamTiming::wall_ms),
                              median_of(runs[i], &StreamTiming::device_ms),
                              median_of(runs[i], &StreamTiming::enqueue_us)};
        measured[i].wrong = streams[i].check();
        measured[i].first_wall_ms = streams[i].first_wall_ms;
    }
    return measured;
}

Measurement StreamBench::measure_native(bench::NativeBaseline& native, HostMemory memory) {
    job_.scale = next_scale();
    StreamJob job = job_;
    job.c = native_c_.data();
    poison(job.c, job.elements);  // the baseline must hand its output back, too
    Measurement result;
    result.timing = native.stream_triad(memory, job);
    result.wrong = check_triad(job, [&](std::size_t i) { return job.c[i]; }, true);
    return result;
}

}  // namespace dualrt::samples::stream
