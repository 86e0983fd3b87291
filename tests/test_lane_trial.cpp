// The trial of lanes (pipeline_lane_trial.hpp): the suggestion first, the other count twice, then
// the faster for good, the suggestion on a tie; a new plan starts again; two lanes or fewer leave
// nothing to try.
#include "pipeline_lane_trial.hpp"

#include <doctest/doctest.h>

using dualrt::detail::LaneTrial;

TEST_CASE("lane trial: the suggestion, the other count twice, then the faster") {
    LaneTrial trial;
    const std::size_t all = 4;
    CHECK(trial.choose(2, all) == 2);  // nothing measured: the suggestion
    CHECK(trial.why(2, 2, all) == "");
    trial.record(2, all, 16, 1.0e-6);
    CHECK(trial.choose(2, all) == 4);  // the other count, twice
    CHECK(trial.why(4, 2, all) == "trying 4 lanes against the 2 the stages suggest");
    trial.record(4, all, 16, 0.9e-6);
    CHECK(trial.choose(2, all) == 4);
    trial.record(4, all, 16, 0.95e-6);
    CHECK(trial.choose(2, all) == 4);  // four ran faster at best (0.9 against 1.0)
    CHECK(trial.why(4, 2, all) ==
          "4 lanes ran faster: 0.900 against 1.000 ns per element at best (2 lanes)");
    // A faster run of two lanes turns it, and the suggestion changing does not restart it.
    trial.record(2, all, 16, 0.8e-6);
    CHECK(trial.choose(2, all) == 2);
    CHECK(trial.choose(4, all) == 2);

    // A new plan (another chunk count) starts over from its suggestion.
    trial.record(4, all, 32, 0.7e-6);
    CHECK(trial.choose(4, all) == 2);  // four ran once: two are tried
    trial.record(2, all, 32, 0.7e-6);
    trial.record(2, all, 32, 0.75e-6);
    CHECK(trial.choose(4, all) == 4);  // a tie keeps the suggestion
    CHECK(trial.choose(2, all) == 4);  // suggesting two: four ran once only, so once more

    // Nothing to try with two lanes in all, and a run without a time teaches nothing.
    LaneTrial few;
    few.record(2, 2, 8, 1.0e-6);
    CHECK(few.choose(2, 2) == 2);
    LaneTrial untimed;
    untimed.record(2, all, 8, 0.0);
    CHECK(untimed.choose(2, all) == 2);
}
