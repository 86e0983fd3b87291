// Pipeline planning without a device: the shapes of plans, halo ranges at the arrays' ends, the
// chunks automatic chunking picks, which chunks a run times, and how much of the runs' time the
// timed windows may take.
#include "run/chunk_extents.hpp"
#include "run/run_checks.hpp"
#include "tune/automatic_chunking.hpp"
#include "tune/planner.hpp"
#include "tune/timed_chunks.hpp"

#include <dualrt/error.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <numeric>

namespace {

using namespace dualrt::detail;

bool test_contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::size_t sum(const std::vector<std::size_t>& sizes) {
    return std::accumulate(sizes.begin(), sizes.end(), std::size_t{0});
}

PlanRequest floats(std::size_t count) {
    PlanRequest request;
    request.count = count;
    request.widest_elem = 4;
    return request;
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

TEST_CASE("pipeline plan: automatic chunking cuts about a quarter of the arrays, 1 to 16 MiB") {
    const dualrt::Chunking automatic = dualrt::Chunking::automatic();
    constexpr std::size_t mib_of_floats = (std::size_t{1} << 20) / 4;
    // 16 MiB arrays: four chunks of 4 MiB.
    PlanDecision plan = choose_plan(automatic, floats(16 * mib_of_floats), "test");
    CAPTURE(plan.how);
    CHECK(plan.sizes == std::vector<std::size_t>(4, 4 * mib_of_floats));
    CHECK(test_contains(plan.how, "auto: 4 chunks"));
    // 1 GiB arrays: chunks of 16 MiB at most.
    plan = choose_plan(automatic, floats(1024 * mib_of_floats), "test");
    CHECK(plan.sizes.size() == 64);
    CHECK(sum(plan.sizes) == 1024 * mib_of_floats);
    for (std::size_t size : plan.sizes) CHECK(size == 16 * mib_of_floats);
    // 2 MiB arrays: chunks of 1 MiB at least.
    plan = choose_plan(automatic, floats(2 * mib_of_floats), "test");
    CHECK(plan.sizes == std::vector<std::size_t>(2, mib_of_floats));
    // Smaller arrays than one chunk: one chunk.
    plan = choose_plan(automatic, floats(1000), "test");
    CHECK(plan.sizes == std::vector<std::size_t>{1000});
    // Whole rows: every chunk but the last a multiple of the granule, all of them covering the
    // arrays; the largest element sets the bytes.
    PlanRequest rows = floats(10'000'000);
    rows.granule = 8192;
    rows.widest_elem = 16;
    plan = choose_plan(automatic, rows, "test");
    CHECK(sum(plan.sizes) == rows.count);
    for (std::size_t i = 0; i + 1 < plan.sizes.size(); ++i) CHECK(plan.sizes[i] % 8192 == 0);
    for (std::size_t size : plan.sizes) CHECK(size * 16 <= (std::size_t{16} << 20) + 8192 * 16);
    // A halo larger than a quarter of the arrays: fewer chunks, each at least as large as it.
    PlanRequest haloed = floats(std::size_t{1} << 20);
    haloed.halo_elements = 270000;
    plan = choose_plan(automatic, haloed, "test");
    CHECK(sum(plan.sizes) == haloed.count);
    for (std::size_t size : plan.sizes) CHECK(size >= 270000);
}

TEST_CASE("pipeline plan: fixed chunking cuts as asked, in whole rows, or says why not") {
    PlanRequest request = floats(10'000);
    request.granule = 100;
    const PlanDecision three = choose_plan(dualrt::Chunking::count(3), request, "test");
    CHECK(three.sizes == std::vector<std::size_t>{3400, 3400, 3200});
    CHECK(test_contains(three.how, "fixed: 3 chunks"));
    const PlanDecision per = choose_plan(dualrt::Chunking::elements(4000), request, "test");
    CHECK(per.sizes == std::vector<std::size_t>{4000, 4000, 2000});
    CHECK_THROWS_WITH_AS(choose_plan(dualrt::Chunking::elements(5050), request, "test"),
                         doctest::Contains("expected a multiple of 100"), dualrt::Error);
}

TEST_CASE("pipeline plan: a first run times the middle and the end; later runs what their "
          "credit pays for") {
    double credit = 0.0;
    std::vector<bool> first, none, events_paid, all_paid;
    choose_timed_chunks(40, dualrt::PipelineTiming::sampled, true, 0, 0.005, credit, 0.0, first);
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < first.size(); ++i)
        if (first[i]) which.push_back(i);
    CHECK(which == std::vector<std::size_t>{19, 20, 21, 36, 37, 38, 39});
    // Not a first run and no credit: nothing timed.
    choose_timed_chunks(40, dualrt::PipelineTiming::sampled, false, 5, 0.005, credit, 0.0, none);
    CHECK(std::count(none.begin(), none.end(), true) == 0);
    // A window costs its 12 events, and where timed runs are dearer as a whole (queues that keep
    // timestamps) that surcharge too: credit for the events alone then buys nothing.
    credit = 12 * 0.005;
    choose_timed_chunks(40, dualrt::PipelineTiming::sampled, false, 5, 0.005, credit, 0.2,
                        events_paid);
    CHECK(std::count(events_paid.begin(), events_paid.end(), true) == 0);
    CHECK(credit == doctest::Approx(12 * 0.005));
    credit = 12 * 0.005 + 0.2;
    choose_timed_chunks(40, dualrt::PipelineTiming::sampled, false, 5, 0.005, credit, 0.2,
                        all_paid);
    CHECK(std::count(all_paid.begin(), all_paid.end(), true) == 3);
    CHECK(credit == doctest::Approx(0.0).epsilon(1e-9));
    // Every chunk, into storage that held another run's choice.
    choose_timed_chunks(40, dualrt::PipelineTiming::every_chunk, false, 5, 0.005, credit, 0.0,
                        all_paid);
    CHECK(std::count(all_paid.begin(), all_paid.end(), true) == 40);
}

TEST_CASE("pipeline plan: a run dealt to several devices keeps its chunks small enough that "
          "each device gets many") {
    const dualrt::Chunking automatic = dualrt::Chunking::automatic();
    PlanRequest two;
    two.count = std::size_t{512} << 20;  // 2 GiB of floats per array
    two.granule = 1024;
    two.widest_elem = 4;
    two.devices = 2;
    const PlanDecision together = choose_plan(automatic, two, "test");
    CAPTURE(together.how);
    CHECK(sum(together.sizes) == two.count);
    const std::size_t cap = two.count / (2 * 32);
    for (std::size_t size : together.sizes) CHECK(size <= cap);
    CHECK(together.sizes.size() >= 64);
    // Chunks of about the cap, ending in three halvings, so that the last device to finish ends
    // a small chunk after the other.
    CHECK(together.sizes.front() * 20 >= cap * 19);
    REQUIRE(together.sizes.size() > 3);
    const std::size_t n = together.sizes.size();
    CHECK(together.sizes[n - 3] == cap / 2);
    CHECK(together.sizes[n - 2] == cap / 4);
    CHECK(together.sizes[n - 1] == cap / 8);
    CHECK(test_contains(together.how, "dealt to 2 devices"));
    // Staged: no chunk above 16 MiB.
    PlanRequest staged = two;
    staged.staged = true;
    for (std::size_t size : choose_plan(automatic, staged, "test").sizes)
        CHECK(size * 4 <= (std::size_t{16} << 20));

    // Small arrays: chunks no smaller than 1 MiB for the sake of the cap.
    PlanRequest small = two;
    small.granule = 1;
    small.count = std::size_t{16} << 20;  // 64 MiB of floats
    const PlanDecision few = choose_plan(automatic, small, "test");
    CHECK(sum(few.sizes) == small.count);
    for (std::size_t size : few.sizes) {
        CHECK(size <= (std::size_t{1} << 20) / 4);
        CHECK(size >= (std::size_t{1} << 20) / 4 / 2);
    }
}

TEST_CASE("pipeline plan: timed windows take a quarter of the budget once the lanes are chosen") {
    const auto planner_of = [](std::size_t chunks) {
        dualrt::PipelineOptions options;
        options.chunking = dualrt::Chunking::count(chunks);
        return Planner(options, dualrt::PipelineMode::lanes, 4, dualrt::Backend::cuda, false,
                       dualrt::RecordingPath::none);
    };
    RunArrays arrays;
    const std::size_t n = 40 * 1024;
    arrays.inputs.push_back(dualrt::detail::HostSide{nullptr, n, 4, true});
    arrays.outputs.push_back(dualrt::detail::HostSide{nullptr, n, 4, true});
    arrays.count = n;
    // Runs of 3.05 ms whose timed events cost 5 us each: a window of three chunks (12 events,
    // 0.06 ms) costs a little less than 2% of a run, and four times 0.5%.
    const auto windows_in = [&](Planner& planner, int runs, const ResolvedTiming& resolved) {
        int timed_runs = 0;
        for (int run = 0; run < runs; ++run) {
            const RunPlan plan = planner.plan(arrays, dualrt::Halo(), "test");
            if (std::any_of(plan.timed.begin(), plan.timed.end(), [](bool t) { return t; }))
                ++timed_runs;
            const std::vector<ChunkExtent> extents = extents_of(plan.sizes);
            RunRecord record{extents, resolved};
            record.typical_record_ms = 0.005;
            planner.learn(arrays, record);
            planner.learn_run_time(arrays, extents.size(), 3.05);
        }
        return timed_runs;
    };
    // The first `chunks` chunks with `stages` timed in order.
    const auto timed_stages = [](std::size_t chunks, std::initializer_list<std::size_t> stages) {
        ResolvedTiming timed;
        for (std::size_t chunk = 0; chunk < chunks; ++chunk)
            for (std::size_t stage : stages)
                timed.durations.push_back(StageDuration{chunk, stage, 0.01, true, true});
        return timed;
    };
    // Chunks timed without their downloads: samples for the estimates, but no chunk with all
    // three stages, so the lanes stay to be chosen and every run times a window.
    Planner forty = planner_of(40);
    CHECK(windows_in(forty, 20, timed_stages(4, {upload_stage, compute_stage})) == 20);
    // Chunks with all three stages timed: the lanes are chosen, and a window comes every fourth
    // run.
    const int settled = windows_in(forty, 40, timed_stages(4, {upload_stage, compute_stage,
                                                               download_stage}));
    CHECK(settled >= 8);
    CHECK(settled <= 12);
    // Runs of two chunks take two queues whatever the lanes: nothing to choose from the start.
    Planner two = planner_of(2);
    const int short_runs = windows_in(two, 40, timed_stages(2, {upload_stage, compute_stage}));
    CHECK(short_runs >= 8);
    CHECK(short_runs <= 12);
}

TEST_CASE("pipeline plan: a replayable layout replays from its second run once its lanes are "
          "chosen, on stage queues where balanced, and says why a run does not replay") {
    RunArrays arrays;
    const auto pinned_arrays = [&](std::size_t n, bool pinned) {
        arrays = RunArrays{};
        arrays.inputs.push_back(dualrt::detail::HostSide{nullptr, n, 4, pinned});
        arrays.outputs.push_back(dualrt::detail::HostSide{nullptr, n, 4, pinned});
        arrays.count = n;
    };
    const auto planner_of = [](std::size_t chunks, dualrt::RecordingPath path) {
        dualrt::PipelineOptions options;
        options.chunking = dualrt::Chunking::count(chunks);
        options.replay = true;
        return Planner(options, dualrt::PipelineMode::lanes, 4, dualrt::Backend::cuda, false,
                       path);
    };
    // Every chunk of the run timed, each stage taking `ms[stage]`: the lanes are chosen from it.
    const auto learn_stages = [&](Planner& planner, const RunPlan& plan,
                                  std::array<double, 3> ms) {
        const std::vector<ChunkExtent> extents = extents_of(plan.sizes);
        ResolvedTiming resolved;
        for (std::size_t chunk = 0; chunk < extents.size(); ++chunk)
            for (std::size_t stage : {upload_stage, compute_stage, download_stage})
                resolved.durations.push_back(StageDuration{chunk, stage, ms[stage], true, true});
        planner.learn(arrays, RunRecord{extents, resolved});
        planner.learn_run_time(arrays, extents.size(), 1.0);
    };
    const auto learn_balanced = [&](Planner& planner, const RunPlan& plan) {
        learn_stages(planner, plan, {0.01, 0.01, 0.01});
    };
    const auto timed_any = [](const RunPlan& plan) {
        return std::any_of(plan.timed.begin(), plan.timed.end(), [](bool t) { return t; });
    };

    pinned_arrays(64 * 16 * 1024, true);  // 64 chunks of 64 KiB
    Planner graphs = planner_of(64, dualrt::RecordingPath::graph);
    const RunPlan first = graphs.plan(arrays, dualrt::Halo(), "test");
    CHECK(!first.replay);
    CHECK(first.no_replay == "the layout's first run times its stages");
    CHECK(timed_any(first));
    learn_balanced(graphs, first);
    for (int run = 0; run < 5; ++run) {
        const RunPlan later = graphs.plan(arrays, dualrt::Halo(), "test");
        CAPTURE(later.no_replay);
        CHECK(later.replay);
        CHECK(!timed_any(later));  // nothing left to choose: no window
        // Balanced 64 KiB chunks keep every lane when enqueued; replayed, one queue per stage.
        CHECK(later.queues.mode == dualrt::PipelineMode::three_queues);
        learn_balanced(graphs, later);
    }

    // An upload that takes most of a chunk's time would choose two lanes for enqueued runs of
    // larger chunks; replayed, the chunks take one queue per stage all the same, and the plan
    // says why.
    Planner uneven = planner_of(64, dualrt::RecordingPath::graph);
    learn_stages(uneven, uneven.plan(arrays, dualrt::Halo(), "test"), {0.03, 0.001, 0.01});
    const RunPlan replayed = uneven.plan(arrays, dualrt::Halo(), "test");
    CHECK(replayed.replay);
    CHECK(replayed.queues.mode == dualrt::PipelineMode::three_queues);
    CAPTURE(replayed.how);
    CHECK(test_contains(replayed.how, "a replay"));

    // The same chunks on a device without graphs or command buffers keep every lane, and say why
    // they do not replay.
    Planner lists = planner_of(64, dualrt::RecordingPath::command_list);
    learn_balanced(lists, lists.plan(arrays, dualrt::Halo(), "test"));
    const RunPlan listed = lists.plan(arrays, dualrt::Halo(), "test");
    CHECK(!listed.replay);
    CHECK(test_contains(listed.no_replay, "command list"));
    CHECK(listed.queues.mode == dualrt::PipelineMode::lanes);
    CHECK(listed.queues.in_flight == 4);

    // Chunks of 256 KiB and more are not replayed; nor are pageable arrays.
    pinned_arrays(4 * 64 * 1024, true);  // 4 chunks of 256 KiB
    Planner large = planner_of(4, dualrt::RecordingPath::graph);
    learn_balanced(large, large.plan(arrays, dualrt::Halo(), "test"));
    const RunPlan big = large.plan(arrays, dualrt::Halo(), "test");
    CHECK(!big.replay);
    CAPTURE(big.no_replay);
    CHECK(test_contains(big.no_replay, "a replay gains nothing"));
    pinned_arrays(64 * 16 * 1024, false);
    Planner staged = planner_of(64, dualrt::RecordingPath::graph);
    learn_balanced(staged, staged.plan(arrays, dualrt::Halo(), "test"));
    const RunPlan pageable = staged.plan(arrays, dualrt::Halo(), "test");
    CHECK(!pageable.replay);
    CHECK(test_contains(pageable.no_replay, "pageable"));
}

TEST_CASE("pipeline plan: same_layout agrees with the layout key, without making it") {
    int a = 0, b = 0;
    const auto arrays = [&](std::size_t in_size, bool in_pinned, std::size_t outputs,
                            dualrt::Halo halo) {
        RunArrays made;
        made.inputs.push_back(HostSide{&a, 100, in_size, in_pinned});
        for (std::size_t k = 0; k < outputs; ++k)
            made.outputs.push_back(HostSide{&b, 100, 4, true});
        made.halo = halo;
        return made;
    };
    using dualrt::Halo;
    const std::vector<RunArrays> layouts = {
        arrays(4, true, 1, Halo()),
        arrays(8, true, 1, Halo()),
        arrays(4, false, 1, Halo()),
        arrays(4, true, 2, Halo()),
        arrays(4, true, 0, Halo()),
        arrays(4, true, 1, Halo::elements(2, 3)),
        arrays(4, true, 1, Halo::elements(3, 2)),
        arrays(4, true, 1, Halo::elements(10, 10)),
        arrays(4, true, 1, Halo::rows(10, 1))};
    for (const RunArrays& x : layouts)
        for (const RunArrays& y : layouts)
            CHECK(same_layout(x, y) == (layout_key(x) == layout_key(y)));
    // Other addresses and lengths are the same layout.
    RunArrays moved = layouts[0];
    moved.inputs[0].data = &b;
    moved.inputs[0].elements = 7;
    CHECK(same_layout(moved, layouts[0]));
}
