// The stage model a report estimates its untimed chunks with, without a device: its fit of fixed
// and per-element costs per stage, the host's least times, and costs that are never negative.
#include "planning/stage_model.hpp"

#include <doctest/doctest.h>

using namespace dualrt::detail;

TEST_CASE("pipeline model: the stage model's fit finds fixed and per-element costs") {
    StageSamples samples;
    for (double b : {1000.0, 4000.0, 16000.0, 64000.0})
        for (int repeat = 0; repeat < 3; ++repeat) samples.add(b, 0.010 + 2e-6 * b);
    samples.add(4000.0, 5.0);  // one outlier: the medians ignore it
    CHECK(samples.size_classes() == 4);
    const StageModel fit = samples.fit();
    CHECK(fit.fixed_ms == doctest::Approx(0.010).epsilon(1e-6));
    CHECK(fit.per_element_ms == doctest::Approx(2e-6).epsilon(1e-6));

    StageSamples one_size;
    one_size.add(1000.0, 0.5);
    one_size.add(1000.0, 0.7);
    const StageModel proportional = one_size.fit();
    CHECK(proportional.fixed_ms == 0.0);
    CHECK(proportional.at(2000.0) == doctest::Approx(1.2));
}

TEST_CASE("pipeline model: the host's work per chunk is its least time, not the one-off costs "
          "that held it up") {
    // Most chunks enqueue in 20 us; some are held up (a lane's first submission, new device
    // buffers' first use), the more the larger the chunk: here most of the samples.
    LayoutModel model;
    for (int run = 0; run < 3; ++run) {
        for (double b : {4194304.0, 8388608.0, 16777216.0}) {
            for (int chunk = 0; chunk < 8; ++chunk) {
                const bool held = chunk >= 3;
                model.samples[host_stage].add(b, held ? 0.020 + 0.05e-6 * b : 0.020);
                model.samples[upload_stage].add(b, 0.010 + 0.075e-6 * b);
                model.samples[compute_stage].add(b, 0.005 + 0.005e-6 * b);
                model.samples[download_stage].add(b, 0.010 + 0.073e-6 * b);
            }
        }
    }
    const StageModels fitted = model.fit();
    CHECK(fitted.stage[host_stage].fixed_ms == doctest::Approx(0.020));
    CHECK(fitted.stage[host_stage].per_element_ms == doctest::Approx(0.0));
    // The device stages keep their medians.
    CHECK(fitted.stage[upload_stage].per_element_ms == doctest::Approx(0.075e-6));
    CHECK(model.samples[host_stage].fit().per_element_ms == doctest::Approx(0.05e-6));
}

TEST_CASE("pipeline model: a fit's costs are never negative") {
    StageSamples none;
    CHECK(none.fit().at(1000.0) == 0.0);

    // Times that fall as chunks grow (a CPU device's side-by-side spans): no negative cost.
    StageSamples falling;
    for (double b : {16384.0, 65536.0, 262144.0, 1048576.0}) falling.add(b, 0.5 - 1e-7 * b);
    const StageModel fit = falling.fit();
    CHECK(fit.per_element_ms == 0.0);
    CHECK(fit.fixed_ms >= 0.0);

    // A line through the origin where the best line would cross below it.
    StageSamples steep;
    for (double b : {16384.0, 65536.0, 262144.0, 1048576.0}) steep.add(b, 2e-6 * b - 0.001);
    const StageModel through_origin = steep.fit();
    CHECK(through_origin.fixed_ms == 0.0);
    CHECK(through_origin.per_element_ms > 0.0);
}
