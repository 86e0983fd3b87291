// A Pipeline over several devices: correct against the host on every device mix the machine has
// (CI: two PoCL devices), with one and two inputs, pinned and pageable, with halos; every chunk
// run once, by one device, with that device's queue; a device that fails is named and leaves the
// Pipeline usable; a much slower device gets no more than its share.
#include "pipeline_support.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

namespace {

namespace tp = test::pipeline;
using dualrt::Chunking;
using dualrt::PipelineMode;

// Work-groups of the test launches. A fixed size, and a first launch of each kernel at least as
// wide as any later one, work around a race in PoCL (3.1 at least): its cache of compiled
// work-group functions makes a new entry for a kernel whenever a launch is wider than any before
// (for the same work-group size), and a command still running from the older entry may then be
// released against the newer one, which aborts PoCL (pocl_release_dlhandle_cache: Assertion
// `found->ref_count > 0'). Chunks of several sizes in flight on two devices at once made that
// happen about once in a hundred runs of this suite.
constexpr std::size_t local_size = 256;
constexpr std::size_t widest_launch = std::size_t{1} << 20;  // above any test's elements

// Kernel `name` of the test kernels on every device, by position in `devices` (each device
// loads the sources once per process: a second load of the same source is refused by design),
// each launched once at its widest with nothing to do (see local_size).
std::vector<dualrt::Kernel> kernels_on(const std::vector<dualrt::Device>& devices,
                                       const std::string& name) {
    static std::mutex mutex;
    static std::vector<dualrt::Device> loaded;
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<dualrt::Kernel> out;
    for (const auto& device : devices) {
        if (std::find(loaded.begin(), loaded.end(), device) == loaded.end()) {
            device.load_sources(tp::kernels);
            loaded.push_back(device);
            auto queue = device.create_queue();
            auto f = device.alloc<float>(1);
            auto u = device.alloc<std::uint32_t>(1);
            // n = 0: every work-item returns at once.
            queue.launch(device.kernel("pipeline_test_triad"), {widest_launch}, {local_size},
                         0u, 1.0f, f, f, f);
            queue.launch(device.kernel("pipeline_test_window"), {widest_launch}, {local_size},
                         0u, 0u, 0u, 0u, 0u, u, u, 0u, u);
            queue.finish();
        }
        out.push_back(device.kernel(name));
    }
    return out;
}

dualrt::Pipeline make_pipeline(std::vector<dualrt::Device> devices, PipelineMode mode,
                               Chunking chunking,
                               dualrt::PipelineTiming timing = dualrt::PipelineTiming::sampled) {
    dualrt::PipelineOptions options;
    options.mode = mode;
    options.chunking = chunking;
    options.timing = timing;
    return dualrt::Pipeline(std::move(devices), options);
}

template <typename T>
dualrt::HostBuffer<T> pinned_on(const dualrt::Device& device, const std::vector<T>& values) {
    auto buffer = device.alloc_host<T>(values.size());
    std::copy(values.begin(), values.end(), buffer.begin());
    return buffer;
}

// What the compute function saw: every chunk once, on the queue of the device it names, and
// the report's rows adding up to the run. "" when all of it holds.
struct ChunkLog {
    std::mutex mutex;
    struct Place {
        std::size_t index, offset, count;
    };
    std::vector<Place> places;
    std::string mismatch;

    void add(const dualrt::ChunkPlace& chunk, const std::vector<dualrt::Device>& devices) {
        std::lock_guard<std::mutex> lock(mutex);
        if (chunk.device_index >= devices.size())
            mismatch = "device_index " + std::to_string(chunk.device_index) + " out of range";
        else if (chunk.queue.device() != devices[chunk.device_index])
            mismatch = "chunk " + std::to_string(chunk.index) + "'s queue is not on its device";
        places.push_back({chunk.index, chunk.offset, chunk.count});
    }
    std::string check(const dualrt::PipelineReport& report, std::size_t n) {
        if (!mismatch.empty()) return mismatch;
        std::sort(places.begin(), places.end(),
                  [](const auto& a, const auto& b) { return a.index < b.index; });
        if (places.size() != report.chunks) return "the compute function saw a wrong count";
        std::size_t offset = 0;
        for (std::size_t i = 0; i < places.size(); ++i) {
            if (places[i].index != i || places[i].offset != offset)
                return "chunk " + std::to_string(i) + " missing, repeated or misplaced";
            offset += places[i].count;
        }
        if (offset != n) return "the chunks do not cover the arrays";
        std::size_t chunks = 0, elements = 0;
        for (const auto& row : report.devices) {
            chunks += row.chunks;
            elements += row.elements;
        }
        if (chunks != report.chunks || elements != n) return "the device rows do not add up";
        return {};
    }
};

}  // namespace

TEST_CASE("multi-device pipeline: two inputs, pinned and pageable, every mode, against the host") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto devices = dualrt::devices();
    const auto triads = kernels_on(devices, "pipeline_test_triad");
    for (const Chunking chunking : {Chunking::count(37), Chunking::elements(4096),
                                    Chunking::automatic()}) {
        for (auto mode : {PipelineMode::lanes, PipelineMode::two_queues,
                          PipelineMode::three_queues}) {
            for (bool pinned : {false, true}) {
                CAPTURE(chunking.str());
                CAPTURE(std::string(dualrt::to_string(mode)));
                CAPTURE(pinned);
                const std::size_t n = rnd.size(100000, 300000);
                const float s = rnd.uniform(-2.0f, 2.0f);
                const auto a = rnd.floats(n), b = rnd.floats(n);
                std::vector<float> c(n, test::poison_float());
                // Pinned runs time every chunk, pageable ones sample.
                auto pipeline = make_pipeline(devices, mode, chunking,
                                              pinned ? dualrt::PipelineTiming::every_chunk
                                                     : dualrt::PipelineTiming::sampled);
                REQUIRE(pipeline.devices().size() == devices.size());
                ChunkLog log;
                const auto compute = [&](auto& chunk) {
                    log.add(chunk, devices);
                    auto [da, db] = chunk.inputs;
                    auto [dc] = chunk.outputs;
                    chunk.queue.launch(triads[chunk.device_index], {chunk.size()}, {local_size},
                                       tp::u32(chunk.size()), s, da, db, dc);
                };
                dualrt::PipelineReport report;
                if (pinned) {
                    auto pa = pinned_on(devices[0], a);
                    auto pb = pinned_on(devices[1], b);
                    report = pipeline.run(dualrt::inputs(pa, pb), dualrt::outputs(c), compute);
                } else {
                    report = pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), compute);
                }
                CHECK(test::saxpy_differences(c, s, b, a) == "");
                CHECK(log.check(report, n) == "");
                REQUIRE(report.devices.size() == devices.size());
                for (std::size_t d = 0; d < devices.size(); ++d) {
                    CHECK(report.devices[d].device_index == d);
                    CHECK(test::contains(report.devices[d].device, devices[d].name()));
                }
                CHECK(report.measured_ms > 0.0);
                CHECK(report.fastest_alone_ms > 0.0);
                CHECK(report.timeline.tracks.size() ==
                      devices.size() * (mode == PipelineMode::two_queues ? 2 : 3));
                CHECK(test::contains(report.summary(), report.devices[1].device));
                if (pinned) {
                    // A HostBuffer is pinned for every CUDA device but for its own OpenCL
                    // context alone: another device registers it and copies it by DMA too.
                    CHECK_FALSE(report.staged_input);
                    // Three spans per chunk (upload, compute, download), named by run index.
                    CHECK(report.timeline.spans.size() == 3 * report.chunks);
                    CHECK(report.timed_chunks == report.chunks);
                } else {
                    CHECK(test::contains(report.timing, "of every 16 of each device"));
                    CHECK(report.timed_chunks < report.chunks);
                }
            }
        }
    }
}

TEST_CASE("multi-device pipeline: one input and one output, with a halo, run after run") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto devices = dualrt::devices();
    const auto windows = kernels_on(devices, "pipeline_test_window");
    const std::size_t before = 3, after = 2;
    auto pipeline = make_pipeline(devices, PipelineMode::automatic, Chunking::elements(3000));
    for (int run = 0; run < 3; ++run) {
        for (bool pinned : {false, true}) {
            CAPTURE(run);
            CAPTURE(pinned);
            const std::size_t n = rnd.size(50000, 120000);
            const auto input = tp::random_u32(rnd, n);
            const auto expected = tp::window_reference(input, before, after);
            std::vector<std::uint32_t> output(n, test::poison_u32);
            ChunkLog log;
            const auto compute = [&](auto& chunk) {
                log.add(chunk, devices);
                auto [in] = chunk.inputs;
                auto [out] = chunk.outputs;
                const std::size_t in_count = chunk.halo_before + chunk.size() + chunk.halo_after;
                chunk.queue.launch(windows[chunk.device_index], {chunk.size()}, {local_size},
                                   tp::u32(chunk.size()), tp::u32(chunk.halo_before),
                                   tp::u32(in_count), tp::u32(before), tp::u32(after), in, in,
                                   0u, out);
            };
            const auto halo = dualrt::Halo::elements(before, after);
            dualrt::PipelineReport report;
            if (pinned) {
                auto pinned_input = pinned_on(devices.back(), input);
                report = pipeline.run(dualrt::inputs(pinned_input).with_halo(halo),
                                      dualrt::outputs(output), compute);
            } else {
                report = pipeline.run(dualrt::inputs(input).with_halo(halo),
                                      dualrt::outputs(output), compute);
            }
            CHECK(test::differences(output, expected) == "");
            CHECK(log.check(report, n) == "");
        }
    }
}

TEST_CASE("multi-device pipeline: another device's HostBuffer is registered once, not staged") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto devices = dualrt::devices();
    const auto triads = kernels_on(devices, "pipeline_test_triad");
    const dualrt::Device& owner = devices[0];
    const dualrt::Device& user = devices[1];
    // CUDA pins for every context; other pairs need the registration.
    const bool portable =
        owner.backend() == dualrt::Backend::cuda && user.backend() == dualrt::Backend::cuda;
    const std::size_t n =
        std::max<std::size_t>(std::size_t{1} << 20,
                              user.staging_stats().min_staged_download_bytes / 4 + 1);
    const float s = rnd.uniform(-2.0f, 2.0f);
    const auto a = rnd.floats(n), b = rnd.floats(n);
    dualrt::Pipeline pipeline(user, {PipelineMode::lanes, Chunking::count(8)});
    for (int round = 0; round < 2; ++round) {  // the second round: HostBuffers at new addresses
        CAPTURE(round);
        auto pa = pinned_on(owner, a);
        auto pb = pinned_on(owner, b);
        auto queue = user.create_queue();
        auto on_user = user.alloc<float>(n);
        const auto staged = [&] { return user.staging_stats().staged_copies; };
        // Before any registration, a copy from a pointer into it is staged on `user`...
        const auto before = staged();
        queue.copy(on_user, pa.data(), n, dualrt::Sync::blocking);
        CHECK(staged() == before + (portable ? 0 : 1));
        // ... a Pipeline run registers it and copies it by DMA ...
        std::vector<float> c(n, test::poison_float());
        const auto report =
            pipeline.run(dualrt::inputs(pa, pb), dualrt::outputs(c), [&](auto& chunk) {
                auto [da, db] = chunk.inputs;
                auto [dc] = chunk.outputs;
                chunk.queue.launch(triads[1], {chunk.size()}, {local_size},
                                   tp::u32(chunk.size()), s, da, db, dc);
            });
        CHECK(test::saxpy_differences(c, s, b, a) == "");
        CHECK_FALSE(report.staged_input);
        // ... and so are plain copies from it afterwards, while it lives.
        const auto after = staged();
        queue.copy(on_user.view(0, n - 1024), pa.data() + 1024, n - 1024,
                   dualrt::Sync::blocking);
        CHECK(staged() == after);
        std::vector<float> back(n - 1024, 0.0f);
        queue.copy(back.data(), back.size(), on_user.view(0, n - 1024), dualrt::Sync::blocking);
        CHECK(std::equal(back.begin(), back.end(), a.begin() + 1024));
    }
}

TEST_CASE("multi-device pipeline: the vector overloads, and one device in the list") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto devices = dualrt::devices();
    const auto triads = kernels_on(devices, "pipeline_test_triad");
    const std::size_t n = 77777;
    const auto a = rnd.floats(n);
    const float s = rnd.uniform(1.0f, 2.0f);
    for (const auto& list : {devices, std::vector<dualrt::Device>{devices[1]}}) {
        CAPTURE(list.size());
        std::vector<float> c(n, test::poison_float());
        dualrt::Pipeline pipeline(list, {PipelineMode::automatic, Chunking::count(9)});
        const auto report = pipeline.run(a, c, [&](auto& chunk) {
            const dualrt::Kernel& triad =
                triads[list.size() == 1 ? 1 : chunk.device_index];
            chunk.queue.launch(triad, {chunk.size()}, {local_size}, tp::u32(chunk.size()), s,
                               chunk.input, chunk.input, chunk.output);
        });
        CHECK(test::saxpy_differences(c, s, a, a) == "");
        CHECK(report.devices.size() == (list.size() == 1 ? 0u : list.size()));
        CHECK(pipeline.device() == list[0]);
    }
}

TEST_CASE("multi-device pipeline: what the constructor refuses") {
    const auto devices = dualrt::devices();
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "the list of devices is empty",
                       dualrt::Pipeline(std::vector<dualrt::Device>{}));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "device 1 of the list is an empty Device",
                       dualrt::Pipeline(std::vector<dualrt::Device>{devices[0], {}}));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "is listed twice (at 0 and 2)",
                       dualrt::Pipeline({devices[0], devices[1], devices[0]}));
    dualrt::PipelineOptions one_deep;
    one_deep.depth = 1;
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "depth 1",
                       dualrt::Pipeline(devices, one_deep));
}

TEST_CASE("multi-device pipeline: a device that fails is named; the pipeline stays usable") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto devices = dualrt::devices();
    const auto triads = kernels_on(devices, "pipeline_test_triad");
    const std::size_t n = 200000;
    const auto a = rnd.floats(n), b = rnd.floats(n);
    const float s = rnd.uniform(-1.0f, 1.0f);
    for (std::size_t failing = 0; failing < devices.size(); ++failing) {
        CAPTURE(failing);
        // A new Pipeline for each failure: on a Pipeline's first run every device takes a chunk
        // (later, one measured slower may take none).
        auto pipeline = make_pipeline(devices, PipelineMode::automatic, Chunking::count(40));
        auto other = make_pipeline(devices, PipelineMode::automatic, Chunking::count(40));
        const std::string name = "(" + std::string(dualrt::to_string(devices[failing].backend())) +
                                 " device " + std::to_string(devices[failing].info().index) + ")";
        std::vector<float> c(n, test::poison_float());
        // The other devices' chunks wait until the failing device has had one: a device of
        // unknown speed always gets a first chunk while some are left, but its thread may start
        // after the others have taken them all.
        std::atomic<bool> reached{false};
        const auto after_failing = [&](std::size_t device) {
            if (device == failing) {
                reached = true;
                return;
            }
            const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
            while (!reached && std::chrono::steady_clock::now() < give_up)
                std::this_thread::yield();
        };
        // The failing device's first chunk throws something that is not a dualrt::Error.
        CHECK_DUALRT_ERROR(dualrt::Errc::backend_failure, name,
                           pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c),
                                        [&](auto& chunk) {
                                            after_failing(chunk.device_index);
                                            if (chunk.device_index == failing)
                                                throw std::runtime_error("refused on purpose");
                                            auto [da, db] = chunk.inputs;
                                            auto [dc] = chunk.outputs;
                                            chunk.queue.launch(triads[chunk.device_index],
                                                               {chunk.size()}, {local_size},
                                                               tp::u32(chunk.size()), s, da, db,
                                                               dc);
                                        }));
        // A dualrt::Error of the failing device keeps its errc and gains the device's name:
        // here a launch with an argument missing.
        reached = false;
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, name,
                           other.run(dualrt::inputs(a, b), dualrt::outputs(c),
                                        [&](auto& chunk) {
                                            after_failing(chunk.device_index);
                                            auto [da, db] = chunk.inputs;
                                            auto [dc] = chunk.outputs;
                                            if (chunk.device_index == failing)
                                                chunk.queue.launch(triads[failing],
                                                                   {chunk.size()}, {local_size},
                                                                   tp::u32(chunk.size()), s, da,
                                                                   db);
                                            else
                                                chunk.queue.launch(triads[chunk.device_index],
                                                                   {chunk.size()}, {local_size},
                                                                   tp::u32(chunk.size()), s, da,
                                                                   db, dc);
                                        }));
        // Both usable afterwards.
        for (auto* used : {&pipeline, &other}) {
            std::fill(c.begin(), c.end(), test::poison_float());
            const auto report =
                used->run(dualrt::inputs(a, b), dualrt::outputs(c), [&](auto& chunk) {
                    auto [da, db] = chunk.inputs;
                    auto [dc] = chunk.outputs;
                    chunk.queue.launch(triads[chunk.device_index], {chunk.size()}, {local_size},
                                       tp::u32(chunk.size()), s, da, db, dc);
                });
            CHECK(test::saxpy_differences(c, s, b, a) == "");
            CHECK(report.chunks >= 40);  // and pieces of chunks: see the slow device's case
        }
    }
}

TEST_CASE("multi-device pipeline: a much slower device gets no more than its share") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto devices = dualrt::devices();
    const auto triads = kernels_on(devices, "pipeline_test_triad");
    const std::size_t n = 48 * 4096;
    const auto a = rnd.floats(n), b = rnd.floats(n);
    const float s = rnd.uniform(-1.0f, 1.0f);
    // Either device slow in turn: the first one listed gets no precedence. The slow one's
    // compute function sleeps far longer than a chunk's work takes on a CPU device: it can
    // finish a few chunks while the other does the rest, not more.
    for (std::size_t slow = 0; slow < 2; ++slow) {
        CAPTURE(slow);
        const std::size_t fast = 1 - slow;
        const std::vector<dualrt::Device> pair{devices[0], devices[1]};
        auto pipeline = make_pipeline(pair, PipelineMode::automatic, Chunking::count(48));
        bool slow_timed = false;  // whether the slow device has finished a chunk in a run
        for (int run = 0; run < 3; ++run) {
            CAPTURE(run);
            std::vector<float> c(n, test::poison_float());
            const auto report =
                pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), [&](auto& chunk) {
                    if (chunk.device_index == slow)
                        std::this_thread::sleep_for(std::chrono::milliseconds(250));
                    auto [da, db] = chunk.inputs;
                    auto [dc] = chunk.outputs;
                    chunk.queue.launch(triads[chunk.device_index], {chunk.size()}, {local_size},
                                       tp::u32(chunk.size()), s, da, db, dc);
                });
            CHECK(test::saxpy_differences(c, s, b, a) == "");
            REQUIRE(report.devices.size() == 2);
            INFO(report.summary());
            // A device's first chunk is a probe: an eighth of a chunk, the rest of which is a
            // chunk of its own. A device whose thread starts late may find every chunk dealt
            // already, and then probes in the next run (seen on a loaded 2-core machine).
            CHECK(report.devices[fast].chunks + report.devices[slow].chunks == report.chunks);
            CHECK(report.chunks <= (run == 0 || !slow_timed ? 50u : 48u));
            if (report.devices[slow].chunks > 0) slow_timed = true;
            // The probe, then only what it can finish while the fast one does the rest.
            CHECK(report.devices[slow].chunks <= 6);
            CHECK(report.devices[slow].elements <= n / 8);
            // The third run measures the fastest device alone, to compare (MixChoice).
            if (run == 2) {
                CHECK(report.devices[slow].chunks == 0);
                CHECK(test::contains(report.chunking, "all on " + report.devices[fast].device));
            }
        }
    }
}

TEST_CASE("multi-device pipeline: in place, one chunk, and empty arrays") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto devices = dualrt::devices();
    const auto triads = kernels_on(devices, "pipeline_test_triad");
    const float s = rnd.uniform(1.0f, 2.0f);
    for (const Chunking chunking : {Chunking::count(1), Chunking::count(11)}) {
        CAPTURE(chunking.str());
        dualrt::PipelineOptions options;
        options.in_place = true;
        options.chunking = chunking;
        dualrt::Pipeline pipeline(devices, options);
        for (int run = 0; run < 3; ++run) {
            CAPTURE(run);
            const std::size_t n = rnd.size(20000, 60000);
            const auto a = rnd.floats(n);
            std::vector<float> c(n, test::poison_float());
            ChunkLog log;
            const auto report = pipeline.run(a, c, [&](auto& chunk) {
                log.add(chunk, devices);
                // In place: the output is the input's memory; c = a + s * a.
                chunk.queue.launch(triads[chunk.device_index], {chunk.size()}, {local_size},
                                   tp::u32(chunk.size()), s, chunk.input, chunk.input,
                                   chunk.output);
            });
            CHECK(test::saxpy_differences(c, s, a, a) == "");
            CHECK(log.check(report, n) == "");
        }
        std::vector<float> none;
        std::vector<float> out;
        const auto empty = pipeline.run(none, out, [](auto&) {});
        CHECK(empty.chunks == 0);
    }
}
