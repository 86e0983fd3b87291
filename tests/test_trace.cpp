// Trace on the device: regions around real copies and kernels on two queues, resolved into a
// Timeline with device time, and the checks Trace makes (un-ended regions, a second device).
#include "support.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <thread>

namespace {

std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

void check_span_times(const dualrt::Timeline& timeline) {
    for (const auto& span : timeline.spans) {
        CAPTURE(span.name);
        CAPTURE(span.start_ms);
        CAPTURE(span.end_ms);
        CHECK(span.start_ms >= 0.0);
        CHECK(span.end_ms >= span.start_ms);
    }
}

}  // namespace

TEST_CASE("trace: regions on two queues give one track per queue in device time") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto& device = test::device();
    auto copy_queue = device.create_queue();
    auto compute_queue = device.create_queue();
    const std::size_t n = 1 << 16;
    const auto input = rnd.float_bits(n);
    std::vector<float> output(n, test::poison_float());
    auto copied = device.alloc<float>(n);
    auto worked = device.alloc<float>(n);
    compute_queue.fill(worked, 0.5f);

    dualrt::Trace trace;
    trace.name_track(copy_queue, "copy");
    const auto upload = trace.begin(copy_queue, "upload", "upload");
    copy_queue.copy(copied, input);
    trace.end(upload);
    const auto busy = trace.begin(compute_queue, "busy", "compute");
    compute_queue.launch(device.kernel("busy"), n, dualrt::Range{}, worked, u32(n), u32(2000));
    trace.end(busy);
    const auto download = trace.begin(copy_queue, "download", "download");
    copy_queue.copy(output, copied);
    trace.end(download);

    const dualrt::Timeline timeline = trace.timeline();
    // timeline() waited for every region, so the copy back is done.
    CHECK(test::differences(output, input) == "");

    CHECK(timeline.tracks == std::vector<std::string>{"copy", "queue 1"});
    REQUIRE(timeline.spans.size() == 3);
    const auto& up = timeline.spans[0];
    const auto& work = timeline.spans[1];
    const auto& down = timeline.spans[2];
    CHECK(up.track == 0);
    CHECK(work.track == 1);
    CHECK(down.track == 0);
    CHECK(up.name == "upload");
    CHECK(work.category == "compute");
    check_span_times(timeline);
    // The origin is the earliest begin, whichever queue it was on.
    CHECK(std::min({up.start_ms, work.start_ms, down.start_ms}) == 0.0);
    // The copy queue is in order: the download region starts after the upload region ended.
    CHECK(down.start_ms >= up.end_ms);
    // The kernel does real work, and the spans fit into the timeline's duration.
    CHECK(work.end_ms > work.start_ms);
    CHECK(timeline.duration_ms() == std::max({up.end_ms, work.end_ms, down.end_ms}));

    // The Chrome trace of it names one thread per queue and holds each region once.
    const auto document = nlohmann::json::parse(timeline.chrome_json());
    std::multiset<std::size_t> threads;
    std::size_t complete = 0;
    for (const auto& event : document.at("traceEvents")) {
        if (event.at("name") == "thread_name") threads.insert(event.at("tid").get<std::size_t>());
        if (event.at("ph") == "X") ++complete;
    }
    CHECK(threads == std::multiset<std::size_t>{0, 1});
    CHECK(complete == 3);
}

TEST_CASE("trace: regions begun and ended by several threads are all kept") {
    const auto& device = test::device();
    const std::size_t threads = 4, regions = 16, n = 1024;
    dualrt::Trace trace;
    std::vector<std::thread> workers;
    for (std::size_t t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            auto queue = device.create_queue();
            auto buffer = device.alloc<float>(n);
            for (std::size_t r = 0; r < regions; ++r) {
                const auto region = trace.begin(queue, "fill " + std::to_string(r), "fill");
                queue.fill(buffer, static_cast<float>(t));
                trace.end(region);
            }
            // The queue goes here: after end() the Trace needs only the events it recorded.
        });
    for (auto& worker : workers) worker.join();

    const auto timeline = trace.timeline();
    CHECK(timeline.tracks.size() == threads);
    REQUIRE(timeline.spans.size() == threads * regions);
    check_span_times(timeline);
    // Per track, regions keep the order they were begun in, and follow one another.
    std::vector<double> last_end(threads, 0.0);
    std::vector<std::size_t> seen(threads, 0);
    for (const auto& span : timeline.spans) {
        REQUIRE(span.track < threads);
        CHECK(span.name == "fill " + std::to_string(seen[span.track]++));
        CHECK(span.start_ms >= last_end[span.track]);
        last_end[span.track] = span.end_ms;
    }
}

TEST_CASE("trace: timeline() refuses a region that was begun but not ended") {
    auto queue = test::device().create_queue();
    dualrt::Trace trace;
    const auto done = trace.begin(queue, "done");
    trace.end(done);
    const auto open = trace.begin(queue, "still open");
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "'still open' on 'queue 0' was begun but",
                       trace.timeline());
    trace.end(open);
    CHECK(trace.timeline().spans.size() == 2);
}

TEST_CASE("trace: queues of two devices cannot share a Trace") {
    const auto all = dualrt::devices();
    const auto other = std::find_if(all.begin(), all.end(),
                                    [](const dualrt::Device& d) { return d != test::device(); });
    if (other == all.end()) {
        MESSAGE("SKIPPED: one device only (" << all.size() << " found); needs a second device");
        return;
    }
    auto here = test::device().create_queue();
    auto there = other->create_queue();
    dualrt::Trace trace;
    trace.end(trace.begin(here, "here"));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "'" + other->name() + "'",
                       trace.begin(there, "there"));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "'" + test::device().name() + "'",
                       trace.begin(there, "there"));
    CHECK(trace.timeline().spans.size() == 1);
}
