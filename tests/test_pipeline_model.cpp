// The estimates a report makes for its untimed chunks, without a device: each stage at the
// median time per element of the latest timed samples.
#include "tune/stage_model.hpp"

#include <doctest/doctest.h>

#include <limits>

using namespace dualrt::detail;

TEST_CASE("pipeline model: a stage is estimated at its median time per element") {
    StageSamples samples;
    CHECK(samples.fit().at(1000.0) == 0.0);  // nothing timed yet
    for (int repeat = 0; repeat < 5; ++repeat) samples.add(4000.0, 0.008);
    samples.add(4000.0, 5.0);  // one stalled measurement: the median ignores it
    CHECK(samples.size() == 6);
    const StageModel fit = samples.fit();
    CHECK(fit.fixed_ms == 0.0);
    CHECK(fit.per_element_ms == doctest::Approx(2e-6));
    CHECK(fit.at(4000.0) == doctest::Approx(0.008));

    // Nonsense is left out: no elements, a negative or not finite time.
    samples.add(0.0, 1.0);
    samples.add(4000.0, -1.0);
    samples.add(4000.0, std::numeric_limits<double>::infinity());
    CHECK(samples.size() == 6);
}

TEST_CASE("pipeline model: old samples fade") {
    StageSamples samples;
    for (int i = 0; i < 40; ++i) samples.add(1000.0, 1.0);  // an old layout of the device
    for (int i = 0; i < 32; ++i) samples.add(1000.0, 0.5);  // what it does now
    CHECK(samples.size() == 32);
    CHECK(samples.fit().at(1000.0) == doctest::Approx(0.5));
}

TEST_CASE("pipeline model: a layout fits each device stage on its own") {
    LayoutModel model;
    model.samples[upload_stage].add(1000.0, 0.1);
    model.samples[compute_stage].add(1000.0, 0.3);
    const StageModels fitted = model.fit();
    CHECK(fitted.stage[upload_stage].at(2000.0) == doctest::Approx(0.2));
    CHECK(fitted.stage[compute_stage].at(2000.0) == doctest::Approx(0.6));
    CHECK(fitted.stage[download_stage].at(2000.0) == 0.0);
}
