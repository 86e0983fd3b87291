#include "triad_runs.hpp"

#include "csv.hpp"
#include "native_baseline.hpp"
#include "native_stream.hpp"
#include "turns.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace dualrt::samples {

TriadData random_triad(std::size_t elements, unsigned seed) {
    TriadData data;
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> values(-1.0f, 1.0f);
    data.s = std::uniform_real_distribution<float>(0.5f, 2.0f)(engine);
    data.a.resize(elements);
    data.b.resize(elements);
    for (std::size_t i = 0; i < elements; ++i) {
        data.a[i] = values(engine);
        data.b[i] = values(engine);
    }
    data.expected.resize(elements);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            const std::size_t first = elements * t / threads, last = elements * (t + 1) / threads;
            for (std::size_t i = first; i < last; ++i)
                data.expected[i] = std::fma(data.s, data.b[i], data.a[i]);
        });
    }
    for (auto& worker : workers) worker.join();
    return data;
}

std::string compare_triad(const float* c, const TriadData& data) {
    const std::size_t n = data.expected.size();
    if (std::memcmp(c, data.expected.data(), n * sizeof(float)) == 0) return {};
    for (std::size_t i = 0; i < n; ++i) {
        if (std::memcmp(&c[i], &data.expected[i], sizeof(float)) == 0) continue;
        std::ostringstream what;
        what.precision(9);
        what << "c[" << i << "] is " << c[i] << ", expected " << data.expected[i];
        return what.str();
    }
    return {};
}

namespace {

// Whether more than one device ran chunks of `run`.
bool shared_by_devices(const TriadRun& run) {
    std::size_t working = 0;
    for (const dualrt::PipelineDeviceRow& row : run.report.devices) working += row.chunks > 0;
    return working > 1;
}

// One Pipeline's runs of the triad: its kernels, its host arrays (pinned copies where asked), and
// the runs measured so far.
class TriadRunner {
public:
    TriadRunner(dualrt::Pipeline& pipeline, const TriadData& data, bool pinned)
        : pipeline_(pipeline), data_(data), pinned_(pinned), output_(data.a.size()) {
        // Kernels are per device: chunk.device_index picks the one of the chunk's device.
        for (const dualrt::Device& device : pipeline.devices())
            triads_.push_back(device.kernel("triad"));
        if (pinned) {
            const std::size_t n = data.a.size();
            const dualrt::Device& device = pipeline.device();
            pinned_a_ = device.alloc_host<float>(n);
            pinned_b_ = device.alloc_host<float>(n);
            pinned_c_ = device.alloc_host<float>(n);
            std::copy(data.a.begin(), data.a.end(), pinned_a_.begin());
            std::copy(data.b.begin(), data.b.end(), pinned_b_.begin());
        }
    }

    // The untimed first run.
    void warm_up() {
        const TriadRun run = run_once();
        warm_up_chunk_elements_ = run.report.chunk_elements;
        note(run, true);
    }
    // One timed run.
    void timed_run() {
        TriadRun run = run_once();
        note(run, false);
        runs_.push_back(std::move(run));
    }
    // The median timed run of the way most runs went, with a line for every run. A Pipeline
    // over several devices measures the fastest device alone in a few runs before it settles,
    // and again every few runs after (mix_choice.hpp): those runs are another way of running,
    // as far from the others as one device is from several, and would shift the median of
    // the runs that dealt to every device by one place each.
    TriadRun median() {
        std::vector<TriadRun> shared, alone;
        for (const TriadRun& run : runs_) (shared_by_devices(run) ? shared : alone).push_back(run);
        std::vector<TriadRun>& most = shared.size() >= alone.size() ? shared : alone;
        std::sort(most.begin(), most.end(),
                  [](const auto& x, const auto& y) { return x.host_ms < y.host_ms; });
        TriadRun median = most[most.size() / 2];
        median.each_run = each_run_;
        const std::size_t others = runs_.size() - most.size();
        median.median_of = std::to_string(most.size()) + " runs";
        if (others > 0)
            median.median_of += "; " + std::to_string(others) + " other run" +
                                (others == 1 ? "" : "s") + " went to " +
                                (&most == &shared ? "one device alone" : "several devices") +
                                ", to compare";
        return median;
    }
    // The largest chunk of the untimed first run.
    std::size_t warm_up_chunk_elements() const { return warm_up_chunk_elements_; }

private:
    TriadRun run_once() {
        const std::size_t n = data_.a.size();
        // NaN: a chunk that never came back fails the check.
        float* c = pinned_ ? pinned_c_.data() : output_.data();
        std::fill(c, c + n, std::nanf(""));
        const float s = data_.s;
        const auto compute = [&](auto& chunk) {
            auto [a, b] = chunk.inputs;
            auto [out] = chunk.outputs;
            // Work-groups as the native streams launch the triad, so both run it the same way.
            chunk.queue.launch(triads_[chunk.device_index], {chunk.size()},
                               {dualrt::bench::detail::triad_local_size},
                               static_cast<std::uint32_t>(chunk.size()), s, a, b, out);
        };
        TriadRun run;
        const auto begun = std::chrono::steady_clock::now();
        run.report = pinned_ ? pipeline_.run(dualrt::inputs(pinned_a_, pinned_b_),
                                             dualrt::outputs(pinned_c_), compute)
                             : pipeline_.run(dualrt::inputs(data_.a, data_.b),
                                             dualrt::outputs(output_), compute);
        run.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                begun)
                          .count();
        const std::string wrong = compare_triad(c, data_);
        if (!wrong.empty())
            throw std::runtime_error("dualrt's triad (" + run.report.chunking +
                                     ") computed a wrong result: " + wrong);
        return run;
    }
    // The line of `run` in each_run: its number, "(untimed)" for the first, its time in ms, its
    // chunk count and chunking.
    void note(const TriadRun& run, bool untimed) {
        each_run_.push_back("run " + std::to_string(each_run_.size()) +
                            (untimed ? " (untimed)" : "") + ": " + fixed(run.host_ms, 3) +
                            " ms, " + std::to_string(run.report.chunks) + " chunks, " +
                            run.report.chunking);
    }

    dualrt::Pipeline& pipeline_;
    const TriadData& data_;
    const bool pinned_;
    std::vector<dualrt::Kernel> triads_;
    std::vector<float> output_;
    dualrt::HostBuffer<float> pinned_a_, pinned_b_, pinned_c_;
    std::vector<TriadRun> runs_;
    std::vector<std::string> each_run_;
    std::size_t warm_up_chunk_elements_ = 0;
};

}  // namespace

TriadRun run_triad(dualrt::Pipeline& pipeline, const TriadData& data, bool pinned,
                   int repetitions) {
    TriadRunner runner(pipeline, data, pinned);
    runner.warm_up();
    for (int r = 0; r < repetitions; ++r) runner.timed_run();
    return runner.median();
}

TogetherRuns run_together_in_turns(dualrt::Pipeline& alone, dualrt::Pipeline& together,
                                   const TriadData& data, bool pinned, int repetitions,
                                   const NativeSplit* split) {
    TriadRunner one(alone, data, pinned), other(together, data, pinned);
    one.warm_up();
    other.warm_up();
    int taken = 0;
    const auto turn = [&] {
        in_turns(taken++, [&] { one.timed_run(); }, [&] { other.timed_run(); });
    };
    TogetherRuns runs;
    if (split != nullptr)
        // The split's warm-up after the Pipelines' warm-ups, each of its timed runs after a turn
        // of theirs.
        runs.native_ms = native_split_triad_ms(split->devices, split->weights, data, pinned,
                                               other.warm_up_chunk_elements(), repetitions,
                                               runs.native_why, [&](int run) {
                                                   if (run > 0) turn();
                                               });
    while (taken < repetitions) turn();  // no split, or it was unavailable
    runs.alone = one.median();
    runs.together = other.median();
    return runs;
}

double native_triad_ms(const dualrt::Device& device, const TriadData& data, bool pinned,
                       std::size_t block_elements, int repetitions, std::string& why) {
    std::unique_ptr<dualrt::bench::NativeBaseline> native;
    try {
        native = dualrt::bench::load_native_baseline(device);
    } catch (const dualrt::Error& e) {
        why = e.what();
        return 0.0;
    }
    std::vector<float> c(data.a.size(), std::nanf(""));
    dualrt::bench::StreamJob job;
    job.a = data.a.data();
    job.b = data.b.data();
    job.c = c.data();
    job.elements = data.a.size();
    job.block_elements = std::max<std::size_t>(1, std::min(block_elements, job.elements));
    job.scale = data.s;
    job.repetitions = repetitions;
    const auto timing = native->stream_triad(
        pinned ? dualrt::bench::HostMemory::pinned : dualrt::bench::HostMemory::pageable, job);
    const std::string wrong = compare_triad(c.data(), data);
    if (!wrong.empty())
        throw std::runtime_error("the native stream computed a wrong result: " + wrong);
    return timing.wall_ms;
}

namespace {

// The devices' runs of the native split meet here before each run, so that they overlap whole
// (each part alone would start its runs when its own set-up ends, and a part that ran ahead would
// have the host and the bus to itself), and wait there until the calling thread, which may run
// other work in between (turns with dualrt's runs), lets them go. A part that fails leaves, so
// the others go on.
class RunGate {
public:
    explicit RunGate(std::size_t parts) : parts_(parts) {}
    // A part, before each of its runs. Throws once the caller has stopped the runs.
    void arrive_and_wait() {
        std::unique_lock<std::mutex> lock(mutex_);
        const std::size_t generation = generation_;
        ++arrived_;
        changed_.notify_all();
        changed_.wait(lock, [&] { return generation_ != generation || stopped_; });
        if (stopped_) throw std::runtime_error("stopped: the work between its runs failed");
    }
    void leave() {
        std::lock_guard<std::mutex> lock(mutex_);
        --parts_;
        changed_.notify_all();
    }
    // The caller: waits until every part still running is at the gate; false when none is.
    bool wait_for_parts() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return arrived_ >= parts_; });
        return parts_ > 0;
    }
    void open() {
        std::lock_guard<std::mutex> lock(mutex_);
        arrived_ = 0;
        ++generation_;
        changed_.notify_all();
    }
    void stop() {
        std::lock_guard<std::mutex> lock(mutex_);
        stopped_ = true;
        changed_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::size_t parts_, arrived_ = 0, generation_ = 0;
    bool stopped_ = false;
};

}  // namespace

double native_split_triad_ms(const std::vector<dualrt::Device>& devices,
                             const std::vector<double>& weights, const TriadData& data,
                             bool pinned, std::size_t block_elements, int repetitions,
                             std::string& why, const std::function<void(int)>& before_run) {
    std::vector<std::unique_ptr<dualrt::bench::NativeBaseline>> natives;
    for (const dualrt::Device& device : devices) {
        try {
            natives.push_back(dualrt::bench::load_native_baseline(device));
        } catch (const dualrt::Error& e) {
            why = e.what();
            return 0.0;
        }
    }
    // Part d: elements [first[d], first[d + 1]).
    const std::size_t n = data.a.size();
    double total_weight = 0.0;
    for (double weight : weights) total_weight += weight;
    std::vector<std::size_t> first{0};
    double cumulative = 0.0;
    for (std::size_t d = 0; d + 1 < devices.size(); ++d) {
        cumulative += weights[d];
        first.push_back(std::max(first.back(),
                                 static_cast<std::size_t>(double(n) * cumulative / total_weight)));
    }
    first.push_back(n);
    std::vector<float> c(n, std::nanf(""));
    std::vector<std::vector<double>> wall_ms(devices.size());  // each part's timed runs
    std::vector<std::string> errors(devices.size());
    std::vector<std::thread> threads;
    std::size_t parts = 0;
    for (std::size_t d = 0; d < devices.size(); ++d) parts += first[d + 1] > first[d] ? 1 : 0;
    RunGate gate(parts);
    for (std::size_t d = 0; d < devices.size(); ++d) {
        if (first[d + 1] == first[d]) continue;  // a part of nothing: the device sits it out
        threads.emplace_back([&, d] {
            try {
                dualrt::bench::StreamJob job;
                job.a = data.a.data() + first[d];
                job.b = data.b.data() + first[d];
                job.c = c.data() + first[d];
                job.elements = first[d + 1] - first[d];
                // One block size for every part, however short: the native OpenCL stream
                // launches every block over a whole block's grid, which two PoCL devices side by
                // side need (native_opencl_stream.cpp).
                job.block_elements = std::max<std::size_t>(1, block_elements);
                job.scale = data.s;
                job.repetitions = repetitions;
                job.before_each_run = [&] { gate.arrive_and_wait(); };
                job.timed_wall_ms = &wall_ms[d];
                natives[d]->stream_triad(pinned ? dualrt::bench::HostMemory::pinned
                                                : dualrt::bench::HostMemory::pageable,
                                         job);
            } catch (const std::exception& e) {
                errors[d] = e.what();
            }
            gate.leave();
        });
    }
    // Run 0 is the parts' warm-up.
    std::exception_ptr failure;
    for (int run = 0; run <= repetitions && gate.wait_for_parts(); ++run) {
        try {
            if (before_run) before_run(run);
        } catch (...) {
            failure = std::current_exception();
            gate.stop();
            break;
        }
        gate.open();
    }
    for (auto& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
    for (const std::string& error : errors)
        if (!error.empty()) throw std::runtime_error("the native split stream failed: " + error);
    const std::string wrong = compare_triad(c.data(), data);
    if (!wrong.empty())
        throw std::runtime_error("the native split stream computed a wrong result: " + wrong);
    // Run r of the whole job: from the common start to the slowest part's end.
    std::vector<double> whole(static_cast<std::size_t>(repetitions), 0.0);
    for (const std::vector<double>& part : wall_ms)
        for (std::size_t r = 0; r < part.size() && r < whole.size(); ++r)
            whole[r] = std::max(whole[r], part[r]);
    std::sort(whole.begin(), whole.end());
    return whole[whole.size() / 2];
}

}  // namespace dualrt::samples
