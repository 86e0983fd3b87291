// Pipeline soak over several arrays and halos, for a bounded time (DUALRT_STRESS_SECONDS):
// pipelines with random options (mode, chunking, depth, timing) run either z = a * x + y from two
// input arrays into one output (the built-in saxpy on a copy of y), each array pinned or pageable
// at random, or the built-in 3x3 stencil over an image of random size with a row halo; every run
// is checked against the CPU, and pipelines are reused across both kinds of run, so that
// automatic chunking meets several layouts.
#include "stencil_reference.hpp"
#include "stress.hpp"

#include <string>

namespace {

dualrt::PipelineOptions random_options(std::mt19937& rng, std::size_t row_width) {
    dualrt::PipelineOptions options;
    const dualrt::PipelineMode modes[] = {dualrt::PipelineMode::two_queues,
                                          dualrt::PipelineMode::three_queues,
                                          dualrt::PipelineMode::lanes};
    options.mode = modes[stress::uniform(rng, 0, 2)];
    switch (stress::uniform(rng, 0, 2)) {
    case 0: options.chunking = dualrt::Chunking::count(stress::uniform(rng, 1, 30)); break;
    case 1:
        options.chunking = dualrt::Chunking::elements(row_width * stress::uniform(rng, 2, 200));
        break;
    default: break;  // automatic
    }
    const std::size_t depths[] = {0, 2, 3, 5};
    options.depth = depths[stress::uniform(rng, 0, 3)];
    if (stress::chance(rng, 0.3)) options.timing = dualrt::PipelineTiming::every_chunk;
    return options;
}

std::string describe(const dualrt::PipelineOptions& o) {
    return std::string(dualrt::to_string(o.mode)) + ", " + o.chunking.str() + ", depth " +
           std::to_string(o.depth) + ", timing " + dualrt::to_string(o.timing);
}

// Either a pinned copy of `values` or nothing, as `pinned` says; runs use the vector otherwise.
dualrt::HostBuffer<float> maybe_pinned(const std::vector<float>& values, bool pinned) {
    if (!pinned) return {};
    auto buffer = test::device().alloc_host<float>(values.size());
    std::copy(values.begin(), values.end(), buffer.begin());
    return buffer;
}

// z = a * x + y over n random floats, each array pinned or pageable at random; "" when right.
std::string run_saxpy(dualrt::Pipeline& pipeline, std::size_t n, std::mt19937& rng,
                      std::string& what) {
    const auto saxpy = test::device().kernel("saxpy");
    const float a = stress::uniform_float(rng, -2.0f, 2.0f);
    const auto x = stress::floats(rng, n), y = stress::floats(rng, n);
    const bool x_pinned = stress::chance(rng, 0.5), y_pinned = stress::chance(rng, 0.5);
    const bool z_pinned = stress::chance(rng, 0.5);
    what = "saxpy over " + std::to_string(n) + " floats, x " + (x_pinned ? "pinned" : "pageable") +
           ", y " + (y_pinned ? "pinned" : "pageable") + ", z " +
           (z_pinned ? "pinned" : "pageable");
    const auto px = maybe_pinned(x, x_pinned), py = maybe_pinned(y, y_pinned);
    std::vector<float> z(n, test::poison_float());
    auto pz = maybe_pinned(z, z_pinned);
    const auto compute = [&](auto& chunk) {
        auto [dx, dy] = chunk.inputs;
        auto [dz] = chunk.outputs;
        chunk.queue.copy(dz, dy);
        chunk.queue.launch(saxpy, {chunk.size()}, {}, stress::u32(chunk.size()), a, dx, dz);
    };
    // Every mix of pinned and pageable is one call with its own argument types.
    const auto x_side = x_pinned ? dualrt::HostArray<const float>(px.data(), n, true)
                                 : dualrt::host_array(x.data(), n);
    const auto y_side = y_pinned ? dualrt::HostArray<const float>(py.data(), n, true)
                                 : dualrt::host_array(y.data(), n);
    const auto z_side = z_pinned ? dualrt::HostArray<float>(pz.data(), n, true)
                                 : dualrt::host_array(z.data(), n);
    pipeline.run(dualrt::inputs(x_side, y_side), dualrt::outputs(z_side), compute);
    const float* result = z_pinned ? pz.data() : z.data();
    for (std::size_t i = 0; i < n; ++i)
        if (!test::saxpy_element_ok(result[i], a, x[i], y[i]))
            return "element " + std::to_string(i) + " is " + test::show(result[i]);
    return {};
}

// The stencil over a random image with a row halo; "" when it equals the host reference.
std::string run_stencil(dualrt::Pipeline& pipeline, std::size_t width, std::mt19937& rng,
                        std::string& what) {
    const auto stencil = test::device().kernel("stencil_blur3x3");
    const std::size_t height = stress::uniform(rng, 1, 400);
    const bool pinned = stress::chance(rng, 0.5);
    what = "stencil over " + std::to_string(width) + " x " + std::to_string(height) +
           (pinned ? ", pinned" : ", pageable");
    const auto image = stress::floats(rng, width * height, 0.0f, 1.0f);
    std::vector<float> expected(image.size()), output(image.size(), test::poison_float());
    dualrt::samples::blur3x3_rows(image.data(), expected.data(), width, height, 0, height);
    const auto pinned_image = maybe_pinned(image, pinned);
    auto pinned_output = maybe_pinned(output, pinned);
    const auto in = pinned ? dualrt::HostArray<const float>(pinned_image.data(), image.size(), true)
                           : dualrt::host_array(image.data(), image.size());
    const auto out = pinned ? dualrt::HostArray<float>(pinned_output.data(), image.size(), true)
                            : dualrt::host_array(output.data(), output.size());
    pipeline.run(dualrt::inputs(in).with_halo(dualrt::Halo::rows(width, 1)),
                 dualrt::outputs(out), [&](auto& chunk) {
                     chunk.queue.launch(stencil, {width, chunk.rows()}, {},
                                        std::get<0>(chunk.inputs), std::get<0>(chunk.outputs),
                                        stress::u32(width), stress::u32(chunk.rows()),
                                        stress::u32(chunk.halo_before / width),
                                        stress::u32(chunk.halo_after / width));
                 });
    if (pinned) std::copy(pinned_output.begin(), pinned_output.end(), output.begin());
    return test::differences(output, expected);
}

}  // namespace

TEST_CASE("stress: pipeline soak over several arrays and row halos") {
    INFO("seed " << stress::seed() << " (DUALRT_STRESS_SEED replays it)");
    const stress::Stopwatch clock;
    auto rng = stress::engine(301);
    std::size_t pipelines = 0, runs = 0;
    const stress::Deadline deadline(stress::seconds());
    do {
        // The row width doubles as the granule of element chunking, so that stencil runs of
        // this pipeline cut whole rows.
        const std::size_t width = stress::uniform(rng, 1, 700);
        auto options = random_options(rng, width);
        dualrt::Pipeline pipeline(test::device(), options);
        ++pipelines;
        for (std::size_t r = stress::uniform(rng, 1, 4); r > 0; --r) {
            std::string what, failure;
            try {
                const std::size_t n = width * stress::uniform(rng, 1, 500);
                failure = stress::chance(rng, 0.5) ? run_stencil(pipeline, width, rng, what)
                                                   : run_saxpy(pipeline, n, rng, what);
            } catch (const std::exception& e) {
                failure = std::string("exception: ") + e.what();
            }
            CAPTURE(describe(options));
            CAPTURE(what);
            REQUIRE(failure == "");
            ++runs;
        }
    } while (!deadline.passed());
    MESSAGE(pipelines << " pipelines, " << runs << " checked runs in " << clock.seconds()
                      << " s");
    CHECK(runs > 0);
}
