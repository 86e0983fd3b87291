// The stage model automatic chunking plans with, without a device: its fit of fixed and
// per-element costs per stage, the host's least times, and when a fit is usable.
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

    LayoutModel layout;
    CHECK(!layout.can_plan());
    for (auto& stage : layout.samples) {
        stage.add(1000.0, 0.1);
        stage.add(8000.0, 0.5);
    }
    CHECK(layout.can_plan());
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

TEST_CASE("pipeline model: a fit needs sizes clearly apart and points near its line, and its "
          "costs are never negative") {
    StageSamples none;
    CHECK(none.unusable(none.fit()) == "no samples");

    StageSamples one_size;
    for (int i = 0; i < 4; ++i) one_size.add(65536.0, 0.2);
    CHECK(one_size.unusable(one_size.fit()) == "one chunk size timed");

    // Two size classes (powers of two apart) but only 1.5x apart: no way to tell fixed from
    // per-element costs in the noise.
    StageSamples close;
    close.add(1000.0, 0.10);
    close.add(1500.0, 0.13);
    CHECK(close.unusable(close.fit()) == "timed chunk sizes too close together");

    // Clean samples at four sizes: usable.
    StageSamples clean;
    for (double b : {16384.0, 65536.0, 262144.0, 1048576.0}) clean.add(b, 0.005 + 1e-6 * b);
    CHECK(clean.unusable(clean.fit()) == "");

    // Four sizes whose times jump about: the line says nothing.
    StageSamples noisy;
    const double times[] = {0.9, 0.05, 1.2, 0.1};
    int k = 0;
    for (double b : {16384.0, 65536.0, 262144.0, 1048576.0}) noisy.add(b, times[k++]);
    CHECK(noisy.unusable(noisy.fit()).rfind("noisy", 0) == 0);

    // Times that fall as chunks grow (a CPU device's side-by-side spans): no negative cost.
    StageSamples falling;
    for (double b : {16384.0, 65536.0, 262144.0, 1048576.0}) falling.add(b, 0.5 - 1e-7 * b);
    const StageModel fit = falling.fit();
    CHECK(fit.per_element_ms == 0.0);
    CHECK(fit.fixed_ms >= 0.0);

    // A layout says which stage it cannot use, and why.
    LayoutModel layout;
    for (auto& stage : layout.samples)
        for (double b : {16384.0, 65536.0, 262144.0}) stage.add(b, 0.005 + 1e-6 * b);
    CHECK(layout.can_plan());
    for (int i = 0; i < 8; ++i) layout.samples[download_stage].add(300000.0, 50.0);
    CHECK(!layout.can_plan());
    CHECK(layout.why_not().rfind("download: noisy", 0) == 0);
    // The host's own time may jitter: its medians do, its noise does not stop a plan.
    LayoutModel jittery_host;
    for (auto& stage : jittery_host.samples)
        for (double b : {16384.0, 65536.0, 262144.0}) stage.add(b, 0.005 + 1e-6 * b);
    jittery_host.samples[host_stage] = noisy;
    CHECK(jittery_host.can_plan());

    // A stage is judged against the chunk's busiest stage: a compute of tens of microseconds
    // that jitters by more than itself beside uploads of a millisecond does not stop a plan
    // (NVIDIA's OpenCL, a copy-bound triad)...
    LayoutModel copy_bound;
    const double compute_us[] = {60.0, 15.0, 90.0, 20.0};
    k = 0;
    for (double b : {1048576.0, 2097152.0, 4194304.0, 8388608.0}) {
        copy_bound.samples[host_stage].add(b, 0.02);
        copy_bound.samples[upload_stage].add(b, 0.02 + 0.15e-6 * b);
        copy_bound.samples[compute_stage].add(b, compute_us[k++] * 1e-3);
        copy_bound.samples[download_stage].add(b, 0.01 + 0.08e-6 * b);
    }
    CHECK(copy_bound.samples[compute_stage]
              .unusable(copy_bound.fit().stage[compute_stage])
              .rfind("noisy", 0) == 0);  // against its own times it is noise
    CHECK(copy_bound.why_not() == "");
    // ...but the busiest stage's own noise does.
    LayoutModel busiest_noisy = copy_bound;
    busiest_noisy.samples[upload_stage] = StageSamples();
    const double upload_ms[] = {2.0, 0.3, 3.0, 0.5};
    k = 0;
    for (double b : {1048576.0, 2097152.0, 4194304.0, 8388608.0})
        busiest_noisy.samples[upload_stage].add(b, upload_ms[k++]);
    CHECK(busiest_noisy.why_not().rfind("upload: noisy", 0) == 0);
}
