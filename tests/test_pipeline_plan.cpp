// Pipeline planning without a device: the shapes of plans, halo ranges at the arrays' ends, the
// simulated time of a plan and the plan automatic chunking picks from its stage model (the
// model's fit itself: test_pipeline_model.cpp).
#include "planning/automatic_chunking.hpp"
#include "planning/plan_simulation.hpp"
#include "planning/stage_model.hpp"
#include "planning/timed_chunks.hpp"
#include "run/chunk_extents.hpp"
#include "run/run_timing.hpp"

#include <dualrt/error.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <initializer_list>
#include <numeric>

namespace {

using namespace dualrt::detail;

bool test_contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::size_t sum(const std::vector<std::size_t>& sizes) {
    return std::accumulate(sizes.begin(), sizes.end(), std::size_t{0});
}

// A model of balanced stages: each of upload, compute and download costs `fixed_us` plus
// `ns_per_element`, the host `host_us` per chunk.
StageModels balanced(double fixed_us, double ns_per_element, double host_us = 1.0) {
    StageModels models;
    models.stage[host_stage] = StageModel{host_us * 1e-3, 0.0};
    for (std::size_t s : {upload_stage, compute_stage, download_stage})
        models.stage[s] = StageModel{fixed_us * 1e-3, ns_per_element * 1e-6};
    return models;
}

// A model of `runs` runs whose samples at `sizes` lie on `truth`'s lines.
LayoutModel sampled_model(const StageModels& truth, std::initializer_list<double> sizes,
                          std::size_t runs) {
    LayoutModel model;
    model.runs = runs;
    for (double b : sizes)
        for (std::size_t stage = 0; stage < stage_count; ++stage)
            model.samples[stage].add(b, truth.stage[stage].at(b));
    return model;
}

// The plan request of a 1 GiB triad: 256 Mi floats per array.
PlanRequest triad_request_1g() {
    PlanRequest request;
    request.count = std::size_t{256} << 20;
    request.widest_elem = 4;
    return request;
}

// One run's samples of a 1 GiB triad's stages, at four chunk sizes: per-chunk fixed costs (host
// and copies, in us) on the H200's per-byte rates.
void add_triad_run(LayoutModel& model, double host_fixed_us, double copy_fixed_us) {
    ++model.runs;
    for (double b : {65536.0, 262144.0, 1048576.0, 4194304.0}) {
        model.samples[host_stage].add(b, host_fixed_us * 1e-3);
        model.samples[upload_stage].add(b, copy_fixed_us * 1e-3 + 0.145e-6 * b);
        model.samples[compute_stage].add(b, 0.004 + 0.003e-6 * b);
        model.samples[download_stage].add(b, copy_fixed_us * 1e-3 + 0.073e-6 * b);
    }
}

}  // namespace

TEST_CASE("pipeline plan: equal and shaped sizes cover the arrays in whole granules") {
    const auto equal = equal_sizes(1000003, 7, 1);
    CHECK(equal.size() == 7);
    CHECK(sum(equal) == 1000003);
    const auto [low, high] = std::minmax_element(equal.begin(), equal.end());
    CHECK(*high - *low <= 1);

    const std::size_t granule = 640;
    const std::size_t count = granule * 10007;
    const auto rows = equal_sizes(count, 13, granule);
    CHECK(sum(rows) == count);
    for (std::size_t size : rows) CHECK(size % granule == 0);

    const auto shaped = shaped_sizes(count, granule * 512, 3, 2, granule, granule * 16);
    REQUIRE(!shaped.empty());
    CHECK(sum(shaped) == count);
    for (std::size_t size : shaped) CHECK(size % granule == 0);
    CHECK(shaped[0] == granule * 64);  // 512 / 2^3
    CHECK(shaped[1] == granule * 128);
    CHECK(shaped[2] == granule * 256);
    CHECK(shaped[shaped.size() - 2] == granule * 256);
    CHECK(shaped.back() == granule * 128);  // 512 / 2^2
    // The middle never exceeds the body (a body at the largest chunk must stay the largest):
    // 9400 elements between the ramps make 10 chunks of 940, not 9 of 1044.
    const auto capped = shaped_sizes(10400, 1000, 1, 1, 1, 1);
    CHECK(sum(capped) == 10400);
    CHECK(*std::max_element(capped.begin(), capped.end()) <= 1000);
    // Too short for the ramps: no plan of that shape.
    CHECK(shaped_sizes(800, 512, 3, 3, 1, 64).empty());
    // An odd end goes to the last chunk.
    const auto odd = shaped_sizes(100003, 10000, 1, 1, 1000, 1000);
    CHECK(sum(odd) == 100003);
    CHECK(odd.back() % 1000 == 3);

    CHECK(describe_sizes({64, 128, 256, 256, 256, 128}) ==
          "6 chunks: 2 rising from 64, 3 of 256, 1 falling to 128 elements");
    CHECK(describe_sizes({100, 100, 100}) == "3 chunks: 3 of 100 elements");
    CHECK(fixed_sizes(10, 4) == std::vector<std::size_t>{4, 4, 2});
}

TEST_CASE("pipeline plan: a chunk's input range has the halo that exists around it") {
    const dualrt::Halo halo = dualrt::Halo::elements(5, 3);
    const auto first = input_range(ChunkExtent{0, 100}, halo, 1000);
    CHECK(first.first == 0);
    CHECK(first.halo_before == 0);
    CHECK(first.halo_after == 3);
    CHECK(first.count == 103);
    const auto middle = input_range(ChunkExtent{100, 100}, halo, 1000);
    CHECK(middle.first == 95);
    CHECK(middle.count == 108);
    const auto near_end = input_range(ChunkExtent{898, 100}, halo, 1000);
    CHECK(near_end.halo_after == 2);
    const auto last = input_range(ChunkExtent{900, 100}, halo, 1000);
    CHECK(last.halo_before == 5);
    CHECK(last.halo_after == 0);
    CHECK(last.first + last.count == 1000);
}

TEST_CASE("pipeline plan: the simulated time of equal balanced chunks is fill, steady state, "
          "drain") {
    const StageModels models = balanced(0.0, 1.0, 0.0);  // 1 ns per element per stage
    ScheduleShape lanes{dualrt::PipelineMode::lanes, 4, 0};
    // 10 chunks of 1e6 elements: 1 ms per stage; three stages in a row overlap to n + 2 steps.
    const std::vector<std::size_t> ten(10, 1000000);
    CHECK(simulate_ms(ten, models, lanes) == doctest::Approx(12.0));
    ScheduleShape three{dualrt::PipelineMode::three_queues, 3, 0};
    CHECK(simulate_ms(ten, models, three) == doctest::Approx(12.0));
    // One copy queue carries uploads and downloads: two steps per chunk.
    ScheduleShape two{dualrt::PipelineMode::two_queues, 2, 0};
    CHECK(simulate_ms(ten, models, two) >= 20.0);
    // Depth 2 cannot keep three stages busy.
    ScheduleShape shallow{dualrt::PipelineMode::lanes, 2, 0};
    CHECK(simulate_ms(ten, models, shallow) > 12.5);
    // A host slower than the device sets the pace.
    StageModels slow_host = models;
    slow_host.stage[host_stage] = StageModel{2.0, 0.0};
    CHECK(simulate_ms(ten, slow_host, lanes) >= 20.0);
}

TEST_CASE("pipeline plan: the best plan never predicts worse than equal chunks, and shrinks its "
          "last chunks where the drain costs") {
    PlanLimits limits;
    limits.granule = 256;
    limits.smallest = 16384;
    limits.largest = 64u << 20;
    const std::size_t count = std::size_t{64} << 20;
    const ScheduleShape shape{dualrt::PipelineMode::lanes, 4, 0};

    // Balanced stages: every engine is busy from its first chunk to its last, and smaller first
    // or last chunks would only leave it idle in between: equal chunks.
    const PlanChoice cheap = best_plan(count, limits, balanced(2.0, 0.02), shape);
    CHECK(sum(cheap.sizes) == count);
    CHECK(cheap.predicted_ms <= cheap.uniform_ms);
    for (std::size_t size : cheap.sizes) CHECK(size % limits.granule == 0);

    // An upload-bound stream (two arrays up, one down, a trivial kernel): the upload engine is
    // busy from the start, and smaller last chunks shorten the compute and download left after
    // it.
    StageModels stream;
    stream.stage[host_stage] = StageModel{0.010, 0.0};
    stream.stage[upload_stage] = StageModel{0.004, 0.145e-6};
    stream.stage[compute_stage] = StageModel{0.004, 0.003e-6};
    stream.stage[download_stage] = StageModel{0.003, 0.073e-6};
    const PlanChoice shaped = best_plan(count, limits, stream, shape);
    CHECK(sum(shaped.sizes) == count);
    CHECK(shaped.predicted_ms < shaped.uniform_ms * 0.995);
    const std::size_t largest = *std::max_element(shaped.sizes.begin(), shaped.sizes.end());
    CHECK(shaped.sizes.back() < largest);
    for (std::size_t size : shaped.sizes) CHECK(size % limits.granule == 0);

    // A costly host per chunk: fewer, larger chunks than with a cheap one.
    const PlanChoice costly = best_plan(count, limits, balanced(2.0, 0.02, 200.0), shape);
    CHECK(costly.sizes.size() < cheap.sizes.size());
    CHECK(costly.predicted_ms <= costly.uniform_ms);

    // Tiny arrays: one chunk.
    const PlanChoice tiny = best_plan(1000, limits, balanced(5.0, 0.02), shape);
    CHECK(tiny.sizes == std::vector<std::size_t>{1000});
}

TEST_CASE("pipeline plan: automatic chunking plans from a model that can, and learns otherwise") {
    const dualrt::Chunking automatic = dualrt::Chunking::automatic();
    PlanRequest request;
    request.count = std::size_t{16} << 20;
    request.granule = 4096;
    request.widest_elem = 4;
    const ScheduleShape shape{dualrt::PipelineMode::lanes, 4, 0};

    LayoutModel fresh;
    const PlanDecision first = choose_plan(automatic, request, fresh, shape, "test");
    CHECK(first.learning);
    CHECK(first.predicted_ms == 0.0);
    CHECK(sum(first.sizes) == request.count);
    CHECK(first.sizes.front() < first.sizes[first.sizes.size() / 2]);
    CHECK(first.sizes.back() < first.sizes[first.sizes.size() / 2]);
    for (std::size_t size : first.sizes) CHECK(size % request.granule == 0);
    CHECK(first.how.find("first run of this layout") != std::string::npos);

    // Samples of a stream's stages at four sizes: the model plans.
    LayoutModel learned;
    learned.runs = 1;
    for (double b : {32768.0, 65536.0, 131072.0, 262144.0}) {
        learned.samples[host_stage].add(b, 0.010);
        learned.samples[upload_stage].add(b, 0.004 + 0.145e-6 * b);
        learned.samples[compute_stage].add(b, 0.004 + 0.003e-6 * b);
        learned.samples[download_stage].add(b, 0.003 + 0.073e-6 * b);
    }
    REQUIRE(learned.can_plan());
    const PlanDecision planned = choose_plan(automatic, request, learned, shape, "test");
    CHECK(!planned.learning);
    CHECK(planned.predicted_ms > 0.0);
    CHECK(sum(planned.sizes) == request.count);
    for (std::size_t size : planned.sizes) CHECK(size % request.granule == 0);
    CHECK(planned.how.find("planned by the stage model of 1 run") != std::string::npos);
    CHECK(learned.plan.count == request.count);

    // The plan is kept while the model predicts it as it did, and made again when not.
    const PlanDecision again = choose_plan(automatic, request, learned, shape, "test");
    CHECK(again.sizes == planned.sizes);
    for (double b : {32768.0, 65536.0, 131072.0, 262144.0})
        for (int i = 0; i < 8; ++i) learned.samples[compute_stage].add(b, 0.050 + 1e-6 * b);
    const PlanDecision slower = choose_plan(automatic, request, learned, shape, "test");
    CHECK(slower.predicted_ms > planned.predicted_ms * 1.01);
    CHECK(sum(slower.sizes) == request.count);

    // Copies that do not grow with the chunk are noise: no plan from them.
    LayoutModel noisy = learned;
    for (double b : {32768.0, 65536.0, 131072.0, 262144.0})
        for (int i = 0; i < 8; ++i) noisy.samples[upload_stage].add(b, 0.05 - 1e-7 * b);
    CHECK(!noisy.can_plan());
    CHECK(choose_plan(automatic, request, noisy, shape, "test").learning);

    // Fixed chunking: whole rows, or an error naming both numbers.
    const PlanDecision fixed = choose_plan(dualrt::Chunking::count(3), request, fresh, shape, "t");
    CHECK(fixed.sizes.size() == 3);
    for (std::size_t size : fixed.sizes) CHECK(size % request.granule == 0);
    CHECK_THROWS_WITH_AS(choose_plan(dualrt::Chunking::elements(5000), request, fresh, shape, "t"),
                         doctest::Contains("does not cut whole rows of 4096 elements"),
                         dualrt::Error);
}

TEST_CASE("pipeline plan: a large fixed cost per chunk makes fewer, bigger chunks, never "
          "smaller than where it would dominate") {
    const PlanRequest request = triad_request_1g();
    const ScheduleShape shape{dualrt::PipelineMode::lanes, 4, 0};
    const auto learned = [](double host_fixed_us, double copy_fixed_us) {
        LayoutModel model;
        add_triad_run(model, host_fixed_us, copy_fixed_us);
        model.runs = 3;
        return model;
    };
    LayoutModel cheap = learned(5.0, 2.0), costly = learned(400.0, 200.0);
    REQUIRE(cheap.can_plan());
    REQUIRE(costly.can_plan());
    const PlanDecision few =
        choose_plan(dualrt::Chunking::automatic(), request, costly, shape, "test");
    const PlanDecision many =
        choose_plan(dualrt::Chunking::automatic(), request, cheap, shape, "test");
    CHECK(sum(few.sizes) == request.count);
    CHECK(sum(many.sizes) == request.count);
    CHECK(few.sizes.size() < many.sizes.size());

    // The floor: host 400 us + the busiest engine's 200 us against 0.145 ns per element, at
    // most half of the chunk's upload.
    const std::size_t floor = fixed_cost_floor(costly.fit(), shape.mode);
    CHECK(floor == doctest::Approx(0.600 / (0.5 * 0.145e-6)).epsilon(0.01));
    for (std::size_t size : few.sizes) CHECK(size >= floor);
    // A model with hardly any fixed cost (the kernel's 4 us) still keeps chunks of 4 MiB and
    // more: timings that miss the fixed costs must not talk auto into small chunks.
    LayoutModel free = learned(0.0, 0.0);
    REQUIRE(free.can_plan());
    CHECK(fixed_cost_floor(free.fit(), shape.mode) < (std::size_t{1} << 20) / 4);
    StageModels nothing_fixed = free.fit();
    for (auto& stage : nothing_fixed.stage) stage.fixed_ms = 0.0;
    CHECK(fixed_cost_floor(nothing_fixed, shape.mode) == 0);
    const PlanDecision unbounded =
        choose_plan(dualrt::Chunking::automatic(), request, free, shape, "test");
    for (std::size_t size : unbounded.sizes) CHECK(size >= (std::size_t{4} << 20) / 4);
    // Arrays too small for four such chunks are cut into four (16 MiB arrays: 4 MiB chunks).
    PlanRequest small = request;
    small.count = std::size_t{4} << 20;
    free.plan = CachedPlan{};
    const PlanDecision quarters =
        choose_plan(dualrt::Chunking::automatic(), small, free, shape, "test");
    CAPTURE(quarters.how);
    CHECK(sum(quarters.sizes) == small.count);
    for (std::size_t size : quarters.sizes) CHECK(size >= small.count / 4);
}

TEST_CASE("pipeline plan: a layout keeps its plan while the model drifts, and takes a new one "
          "only where it is predicted faster by more than 3%") {
    const PlanRequest request = triad_request_1g();
    const ScheduleShape shape{dualrt::PipelineMode::lanes, 4, 0};
    LayoutModel model;
    for (int run = 0; run < 3; ++run) add_triad_run(model, 100.0, 20.0);
    REQUIRE(model.can_plan());
    const auto plan = [&] {
        return choose_plan(dualrt::Chunking::automatic(), request, model, shape, "test");
    };
    const PlanDecision first = plan();
    CAPTURE(first.how);
    // The model drifts (a run with dearer chunks): the plan's prediction moves by more than 1%,
    // but what a new plan would gain is small, so the plan stays and its prediction follows.
    for (int run = 0; run < 4; ++run) add_triad_run(model, 130.0, 40.0);
    const PlanDecision drifted = plan();
    CAPTURE(drifted.how);
    CHECK(drifted.sizes == first.sizes);
    CHECK(drifted.predicted_ms > first.predicted_ms * 1.01);
    // Chunks far dearer than the plan assumed: fewer, larger chunks are clearly faster.
    for (int run = 0; run < 12; ++run) add_triad_run(model, 3000.0, 1500.0);
    const PlanDecision dearer = plan();
    CAPTURE(dearer.how);
    CHECK(dearer.sizes.size() < first.sizes.size());
    CHECK(sum(dearer.sizes) == request.count);
}

TEST_CASE("pipeline plan: learning runs time sizes far apart, then an unusable model gives a "
          "safe plan") {
    PlanRequest request;
    request.count = std::size_t{64} << 20;  // 256 MiB of floats
    request.widest_elem = 4;
    const ScheduleShape shape{dualrt::PipelineMode::lanes, 4, 0};
    const auto middle = [](const std::vector<std::size_t>& sizes) {
        return sizes[sizes.size() / 2];
    };
    // Degenerate samples: every chunk took the same time whatever its size.
    LayoutModel model;
    std::vector<std::size_t> bodies;
    for (std::size_t run = 0; run < 3; ++run) {
        model.runs = run;
        const PlanDecision plan =
            choose_plan(dualrt::Chunking::automatic(), request, model, shape, "test");
        CAPTURE(plan.how);
        CHECK(plan.learning);
        CHECK(sum(plan.sizes) == request.count);
        // Growing at the start, shrinking at the end: sizes about 8x apart within the run.
        CHECK(plan.sizes.front() * 7 < middle(plan.sizes));
        CHECK(plan.sizes.back() * 7 < middle(plan.sizes));
        bodies.push_back(middle(plan.sizes));
        for (auto& stage : model.samples)
            for (std::size_t size : plan.sizes) stage.add(static_cast<double>(size), 0.25);
    }
    // Each run's body about 4x from the others' (a body is at most its scaled size, so a
    // little under): together they span about 16x.
    std::sort(bodies.begin(), bodies.end());
    CHECK(bodies[1] * 2 >= 7 * bodies[0]);
    CHECK(bodies[2] * 2 >= 7 * bodies[1]);

    model.runs = 3;
    REQUIRE(!model.can_plan());
    const PlanDecision safe =
        choose_plan(dualrt::Chunking::automatic(), request, model, shape, "test");
    CAPTURE(safe.how);
    CHECK(!safe.learning);
    CHECK(safe.predicted_ms == 0.0);
    CHECK(test_contains(safe.how, "a safe plan"));
    CHECK(test_contains(safe.how, "the timed copies do not grow"));
    CHECK(sum(safe.sizes) == request.count);
    // Equal chunks of a quarter of the arrays within 1 to 16 MiB: here 16 MiB (a quarter is 64).
    CHECK(safe.sizes.size() == 16);
    for (std::size_t size : safe.sizes) CHECK(size == (std::size_t{16} << 20) / 4);

    // A run too short to pay for learning takes the safe plan at once.
    PlanRequest shorter = request;
    shorter.count = std::size_t{4} << 20;
    shorter.can_learn = false;
    LayoutModel fresh;
    const PlanDecision at_once =
        choose_plan(dualrt::Chunking::automatic(), shorter, fresh, shape, "test");
    CHECK(!at_once.learning);
    CHECK(test_contains(at_once.how, "first run of this layout, a safe plan"));
    CHECK(test_contains(at_once.how, "too short"));
    // A quarter of 16 MiB arrays: 4 MiB chunks (a 32nd would have been 1 MiB, the least).
    CHECK(at_once.sizes == std::vector<std::size_t>(4, (std::size_t{4} << 20) / 4));
    // 12 MiB arrays: a quarter, 3 MiB.
    shorter.count = std::size_t{3} << 20;
    const PlanDecision small = choose_plan(dualrt::Chunking::automatic(), shorter, fresh, shape,
                                           "test");
    CHECK(small.sizes == std::vector<std::size_t>(4, (std::size_t{3} << 20) / 4));
    // 2 MiB arrays: a quarter is under 1 MiB, the least a safe plan cuts: two chunks.
    shorter.count = std::size_t{1} << 19;
    const PlanDecision smaller = choose_plan(dualrt::Chunking::automatic(), shorter, fresh, shape,
                                             "test");
    CHECK(smaller.sizes == std::vector<std::size_t>(2, (std::size_t{1} << 20) / 4));
}

TEST_CASE("pipeline plan: learning is paid for only where it costs little of the run, and "
          "times the middle and the shrinking end") {
    const std::size_t stream_16m = 3 * (std::size_t{16} << 20);  // a + b up, c down
    CHECK(learning_affordable(stream_16m, 0.0019));   // CUDA's timed event
    CHECK(!learning_affordable(stream_16m, 0.0092));  // NVIDIA OpenCL's marker and flush
    CHECK(learning_affordable(stream_16m * 16, 0.0092));

    double credit = 0.0;
    const auto timed = choose_timed_chunks(40, dualrt::PipelineTiming::sampled, true, 0, 0.005,
                                           credit);
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < timed.size(); ++i)
        if (timed[i]) which.push_back(i);
    CHECK(which == std::vector<std::size_t>{19, 20, 21, 36, 37, 38, 39});
    CHECK(4 * which.size() == learning_records);
    // Not learning and no credit: nothing timed.
    const auto none = choose_timed_chunks(40, dualrt::PipelineTiming::sampled, false, 5, 0.005,
                                          credit);
    CHECK(std::count(none.begin(), none.end(), true) == 0);
    // A window costs its 12 events, and where timed runs are dearer as a whole (queues that keep
    // timestamps) that surcharge too: credit for the events alone then buys nothing.
    credit = 12 * 0.005;
    const auto events_paid = choose_timed_chunks(40, dualrt::PipelineTiming::sampled, false, 5,
                                                 0.005, credit, 0.2);
    CHECK(std::count(events_paid.begin(), events_paid.end(), true) == 0);
    CHECK(credit == doctest::Approx(12 * 0.005));
    credit = 12 * 0.005 + 0.2;
    const auto all_paid = choose_timed_chunks(40, dualrt::PipelineTiming::sampled, false, 5,
                                              0.005, credit, 0.2);
    CHECK(std::count(all_paid.begin(), all_paid.end(), true) == 3);
    CHECK(credit == doctest::Approx(0.0).epsilon(1e-9));
}

TEST_CASE("pipeline plan: a run dealt to several devices keeps its chunks small enough that "
          "each device gets many, and a plan for one device is not reused for several") {
    PlanRequest request;
    request.count = std::size_t{512} << 20;  // 2 GiB of floats per array
    request.granule = 1024;
    request.widest_elem = 4;
    const ScheduleShape shape{dualrt::PipelineMode::lanes, 4, 0};
    // Copies at ~20 GB/s with large fixed costs per chunk: alone, large chunks are best.
    StageModels truth;
    truth.stage[host_stage] = StageModel{0.5, 0.0};
    truth.stage[upload_stage] = StageModel{0.3, 0.2e-6};
    truth.stage[compute_stage] = StageModel{0.004, 0.01e-6};
    truth.stage[download_stage] = StageModel{0.3, 0.1e-6};
    LayoutModel model = sampled_model(truth, {262144.0, 1048576.0, 4194304.0, 16777216.0}, 3);
    REQUIRE(model.can_plan());
    const dualrt::Chunking automatic = dualrt::Chunking::automatic();
    const PlanDecision alone = choose_plan(automatic, request, model, shape, "test");
    const std::size_t alone_largest = *std::max_element(alone.sizes.begin(), alone.sizes.end());

    PlanRequest two = request;
    two.devices = 2;
    const PlanDecision together = choose_plan(automatic, two, model, shape, "test");
    CAPTURE(together.how);
    CHECK(sum(together.sizes) == request.count);
    const std::size_t cap = request.count / (2 * 32);
    for (std::size_t size : together.sizes) CHECK(size <= cap);
    CHECK(together.sizes.size() >= 64);
    // Chunks of about the cap, whatever the one-device model prefers, ending in three halvings, so
    // that the last device to finish ends a small chunk after the other.
    CHECK(together.sizes.front() * 20 >= cap * 19);
    REQUIRE(together.sizes.size() > 3);
    const std::size_t n = together.sizes.size();
    CHECK(together.sizes[n - 3] == cap / 2);
    CHECK(together.sizes[n - 2] == cap / 4);
    CHECK(together.sizes[n - 1] == cap / 8);
    CHECK(test_contains(together.how, "dealt to 2 devices"));
    CHECK(together.predicted_ms > 0.0);
    // A model that finds no fixed cost (it would cut chunks as small as it may): the same plan.
    StageModels free_truth = truth;
    for (auto& stage : free_truth.stage) stage.fixed_ms = 0.0;
    LayoutModel free = sampled_model(free_truth, {262144.0, 1048576.0, 4194304.0, 16777216.0}, 3);
    REQUIRE(free.can_plan());
    CHECK(choose_plan(automatic, two, free, shape, "test").sizes == together.sizes);
    // Alone the plan had larger chunks; after the capped plan, alone is planned again.
    REQUIRE(alone_largest > cap);
    const PlanDecision alone_again = choose_plan(automatic, request, model, shape, "test");
    CHECK(alone_again.sizes == alone.sizes);

    // Small arrays: chunks no smaller than 1 MiB for the sake of the cap, in the safe plan too.
    PlanRequest small = two;
    small.count = std::size_t{16} << 20;  // 64 MiB of floats
    small.can_learn = false;
    LayoutModel fresh;
    const PlanDecision safe = choose_plan(automatic, small, fresh, shape, "test");
    CHECK(sum(safe.sizes) == small.count);
    for (std::size_t size : safe.sizes) {
        CHECK(size <= (std::size_t{1} << 20) / 4);
        CHECK(size >= (std::size_t{1} << 20) / 4 / 2);
    }
}
