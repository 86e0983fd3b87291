#include "triad_runs.hpp"

#include "csv.hpp"
#include "native_baseline.hpp"
#include "native_stream.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
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

TriadRun run_triad(dualrt::Pipeline& pipeline, const TriadData& data, bool pinned,
                   int repetitions) {
    // Kernels are per device: chunk.device_index picks the one of the chunk's device.
    std::vector<dualrt::Kernel> triads;
    for (const dualrt::Device& device : pipeline.devices())
        triads.push_back(device.kernel("triad"));
    const float s = data.s;
    const auto compute = [&](auto& chunk) {
        auto [a, b] = chunk.inputs;
        auto [c] = chunk.outputs;
        // Work-groups as the native streams launch the triad, so both run it the same way.
        chunk.queue.launch(triads[chunk.device_index], {chunk.size()},
                           {dualrt::bench::detail::triad_local_size},
                           static_cast<std::uint32_t>(chunk.size()), s, a, b, c);
    };
    const std::size_t n = data.a.size();
    std::vector<float> output(n);
    dualrt::HostBuffer<float> pinned_a, pinned_b, pinned_c;
    if (pinned) {
        const dualrt::Device& device = pipeline.device();
        pinned_a = device.alloc_host<float>(n);
        pinned_b = device.alloc_host<float>(n);
        pinned_c = device.alloc_host<float>(n);
        std::copy(data.a.begin(), data.a.end(), pinned_a.begin());
        std::copy(data.b.begin(), data.b.end(), pinned_b.begin());
    }
    std::vector<TriadRun> runs;
    std::vector<std::string> each_run;
    // Automatic chunking's learning runs after the first are warm-ups too, as in the stream,
    // stencil and overlap samples: their chunk sizes are chosen to be timed, not to be fast.
    int extra_warmups = 2;
    for (int r = 0, run_number = 0; r <= repetitions; ++r, ++run_number) {
        // NaN: a chunk that never came back fails the check.
        const float poison = std::nanf("");
        float* c = pinned ? pinned_c.data() : output.data();
        std::fill(c, c + n, poison);
        TriadRun run;
        const auto begun = std::chrono::steady_clock::now();
        run.report = pinned ? pipeline.run(dualrt::inputs(pinned_a, pinned_b),
                                           dualrt::outputs(pinned_c), compute)
                            : pipeline.run(dualrt::inputs(data.a, data.b),
                                           dualrt::outputs(output), compute);
        run.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                begun)
                          .count();
        const std::string wrong = compare_triad(c, data);
        if (!wrong.empty())
            throw std::runtime_error("dualrt's triad (" + run.report.chunking +
                                     ") computed a wrong result: " + wrong);
        const bool warm_up = r == 0 || (run.report.learning && extra_warmups > 0);
        each_run.push_back("run " + std::to_string(run_number) + (warm_up ? " (untimed)" : "") +
                           ": " + fixed(run.host_ms, 3) + " ms, " +
                           std::to_string(run.report.chunks) + " chunks, " +
                           run.report.chunking);
        if (r > 0 && warm_up) {  // a learning run
            --extra_warmups;
            --r;
            continue;
        }
        if (r > 0) runs.push_back(std::move(run));  // r == 0: untimed first run
    }
    std::sort(runs.begin(), runs.end(),
              [](const auto& x, const auto& y) { return x.host_ms < y.host_ms; });
    TriadRun median = std::move(runs[runs.size() / 2]);
    median.each_run = std::move(each_run);
    return median;
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

double native_split_triad_ms(const std::vector<dualrt::Device>& devices,
                             const std::vector<double>& weights, const TriadData& data,
                             bool pinned, std::size_t block_elements, int repetitions,
                             std::string& why) {
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
    std::vector<double> ms(devices.size(), 0.0);
    std::vector<std::string> errors(devices.size());
    std::vector<std::thread> threads;
    for (std::size_t d = 0; d < devices.size(); ++d) {
        if (first[d + 1] == first[d]) continue;  // a part of nothing: the device sits it out
        threads.emplace_back([&, d] {
            try {
                dualrt::bench::StreamJob job;
                job.a = data.a.data() + first[d];
                job.b = data.b.data() + first[d];
                job.c = c.data() + first[d];
                job.elements = first[d + 1] - first[d];
                job.block_elements = std::max<std::size_t>(1, std::min(block_elements,
                                                                       job.elements));
                job.scale = data.s;
                job.repetitions = repetitions;
                ms[d] = natives[d]->stream_triad(pinned ? dualrt::bench::HostMemory::pinned
                                                        : dualrt::bench::HostMemory::pageable,
                                                 job)
                            .wall_ms;
            } catch (const std::exception& e) {
                errors[d] = e.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    for (const std::string& error : errors)
        if (!error.empty()) throw std::runtime_error("the native split stream failed: " + error);
    const std::string wrong = compare_triad(c.data(), data);
    if (!wrong.empty())
        throw std::runtime_error("the native split stream computed a wrong result: " + wrong);
    return *std::max_element(ms.begin(), ms.end());
}

}  // namespace dualrt::samples
