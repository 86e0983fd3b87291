// Pipeline soak, for a bounded time (DUALRT_STRESS_SECONDS): pipelines with random options (lanes,
// two or three queues or automatic, chunks by count, by elements or automatic, random depth, in
// place or not, sampled or every-chunk timing), each run a few times over random element counts
// from pinned HostBuffers, pageable vectors or pageable pointers, computing with built-in
// kernels; every run checked against the CPU, and the chunks checked to tile the input in order.
// Some runs' compute function throws at a random chunk: the exception must come out of run() as
// thrown, and the same pipeline must then compute the next run correctly.
#include "stress.hpp"

#include <array>
#include <string>

namespace {

// Thrown by the compute function on purpose; nothing else may throw it.
struct PlannedFailure {
    std::size_t chunk;
};

// Automatic chunking shapes a layout's first run (chunks growing from and shrinking to a 64th of a
// 1 MiB chunk at least) and plans later runs from the model it fitted; inputs of a few Mi floats
// exercise both without making the run long on a CPU device.
constexpr std::size_t calibrated_min = 3 * 1024 * 1024;

// The compute function: output = alpha * input + c (fill, then saxpy) or busy(input) (copy, then
// busy in place on the output; busy alone when the pipeline runs in place). Counts its calls and
// checks that chunks come in order and tile the input.
struct Compute {
    dualrt::Kernel saxpy = test::device().kernel("saxpy");
    dualrt::Kernel busy = test::device().kernel("busy");
    bool use_saxpy = false;
    float alpha = 0.0f, c = 0.0f;
    std::uint32_t iterations = 1;
    std::size_t throw_at = static_cast<std::size_t>(-1);
    std::size_t calls = 0, next_offset = 0;
    std::string tiling;  // "" while the chunks tile the input

    void operator()(dualrt::Chunk<float, float>& chunk) {
        if (chunk.index == throw_at) throw PlannedFailure{chunk.index};
        if (tiling.empty() && (chunk.index != calls || chunk.offset != next_offset ||
                               chunk.size() == 0 || chunk.output.size() != chunk.size()))
            tiling = "chunk " + std::to_string(chunk.index) + " at " +
                     std::to_string(chunk.offset) + " (" + std::to_string(chunk.size()) +
                     " elements) after " + std::to_string(calls) + " chunks ending at " +
                     std::to_string(next_offset);
        ++calls;
        next_offset = chunk.offset + chunk.size();
        const auto n = stress::u32(chunk.size());
        if (use_saxpy) {
            chunk.queue.fill(chunk.output, c);
            chunk.queue.launch(saxpy, {chunk.size()}, {}, n, alpha, chunk.input, chunk.output);
            return;
        }
        const bool in_place = chunk.output.native_handle() == chunk.input.native_handle() &&
                              chunk.output.offset_bytes() == chunk.input.offset_bytes();
        if (!in_place) chunk.queue.copy(chunk.output, chunk.input);
        chunk.queue.launch(busy, {chunk.size()}, {}, chunk.output, n, iterations);
    }

    // "" when out[i] is what this function computes from in[i], for every i.
    std::string check(const float* in, const float* out, std::size_t n) const {
        for (std::size_t i = 0; i < n; ++i) {
            bool ok;
            if (use_saxpy) {
                ok = test::saxpy_element_ok(out[i], alpha, in[i], c);
            } else {
                const float expected = stress::busy_reference(in[i], iterations);
                ok = std::memcmp(&out[i], &expected, sizeof expected) == 0;
            }
            if (!ok)
                return "element " + std::to_string(i) + " of " + std::to_string(n) + ": input " +
                       test::show(in[i]) + ", output " + test::show(out[i]);
        }
        return {};
    }
};

enum class Host { pinned, vectors, pointers };
const char* to_string(Host host) {
    return host == Host::pinned ? "pinned" : host == Host::vectors ? "vectors" : "pointers";
}

dualrt::PipelineOptions random_options(std::mt19937& rng) {
    dualrt::PipelineOptions options;
    const dualrt::PipelineMode modes[] = {dualrt::PipelineMode::two_queues,
                                          dualrt::PipelineMode::three_queues,
                                          dualrt::PipelineMode::lanes,
                                          dualrt::PipelineMode::automatic};
    options.mode = modes[stress::uniform(rng, 0, 3)];
    switch (stress::uniform(rng, 0, 2)) {
    case 0: options.chunking = dualrt::Chunking::count(stress::uniform(rng, 1, 40)); break;
    case 1:
        options.chunking = dualrt::Chunking::elements(stress::uniform(rng, 1000, 200000));
        break;
    default: options.chunking = dualrt::Chunking::automatic(); break;
    }
    const std::size_t depths[] = {0, 2, 3, 4};
    options.depth = depths[stress::uniform(rng, 0, 3)];
    options.in_place = stress::chance(rng, 0.3);
    if (stress::chance(rng, 0.3)) options.timing = dualrt::PipelineTiming::every_chunk;
    return options;
}

std::string describe(const dualrt::PipelineOptions& o) {
    return std::string(dualrt::to_string(o.mode)) + ", " + o.chunking.str() + ", depth " +
           std::to_string(o.depth) + (o.in_place ? ", in place" : "") + ", timing " +
           dualrt::to_string(o.timing);
}

struct Totals {
    std::size_t pipelines = 0, runs = 0, chunks = 0, elements = 0, throws = 0, calibrated = 0;
    std::array<std::size_t, 3> by_host{};
};

// One run of `pipeline` over n fresh random floats; "" when the output is right (or when the
// planned failure came out of run() as it should).
std::string run_once(dualrt::Pipeline& pipeline, std::size_t n, Host host, Compute& compute,
                     std::mt19937& rng, Totals& totals, bool& threw) {
    const auto input = stress::floats(rng, n, compute.use_saxpy ? -1.0f : 0.0f, 1.0f);
    std::vector<float> output(n, test::poison_float());
    dualrt::PipelineReport report;
    threw = false;
    try {
        if (host == Host::vectors) {
            report = pipeline.run(input, output, compute);
        } else {
            auto in = test::device().alloc_host<float>(n);
            auto out = test::device().alloc_host<float>(n);
            std::copy(input.begin(), input.end(), in.begin());
            std::fill(out.begin(), out.end(), test::poison_float());
            // Pointers into pinned memory are still pointers: run() stages them like any other.
            if (host == Host::pinned)
                report = pipeline.run(in, out, compute);
            else
                report = pipeline.run(in.data(), out.data(), n, compute);
            std::copy(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), output.begin());
        }
    } catch (const PlannedFailure& failure) {
        threw = true;
        ++totals.throws;
        if (failure.chunk != compute.throw_at) return "a PlannedFailure from the wrong chunk";
        if (compute.calls != compute.throw_at)
            return "the compute function ran " + std::to_string(compute.calls) +
                   " times before throwing at chunk " + std::to_string(compute.throw_at);
        return compute.tiling;
    }
    ++totals.runs;
    ++totals.by_host[static_cast<std::size_t>(host)];
    totals.chunks += report.chunks;
    totals.elements += n;
    if (test::contains(report.chunking, "planned by the stage model")) ++totals.calibrated;
    if (!compute.tiling.empty()) return "bad chunks: " + compute.tiling;
    if (compute.calls != report.chunks || compute.next_offset != n)
        return "the compute function ran " + std::to_string(compute.calls) + " times over " +
               std::to_string(compute.next_offset) + " elements; the report says " +
               std::to_string(report.chunks) + " chunks over " + std::to_string(n);
    return compute.check(input.data(), output.data(), n);
}

}  // namespace

TEST_CASE("stress: pipeline soak with random chunking, modes, host memory and failures") {
    const auto& device = test::device();
    INFO("seed " << stress::seed() << " (DUALRT_STRESS_SEED replays it)");
    const stress::Stopwatch clock;
    auto rng = stress::engine(300);
    Totals totals;
    bool first = true;
    const stress::Deadline deadline(stress::seconds());
    do {
        auto options = random_options(rng);
        // The first pipeline cuts its input into a known number of chunks and fails at one of
        // them, so every soak has at least one planned failure.
        if (first) options.chunking = dualrt::Chunking::count(stress::uniform(rng, 2, 40));
        const bool automatic = options.chunking.kind() == dualrt::Chunking::Kind::automatic;
        dualrt::Pipeline pipeline(device, options);
        ++totals.pipelines;
        const std::size_t runs = stress::uniform(rng, 1, 3);
        bool must_work = false;  // the run after a planned failure
        for (std::size_t r = 0; r < runs || must_work; ++r) {
            // Mostly up to 300 Ki floats, a few tiny ones, and for automatic chunking some that
            // are large enough to calibrate.
            std::size_t n = stress::uniform(rng, 1, 300000);
            if (stress::chance(rng, 0.1)) n = stress::uniform(rng, 1, 100);
            if (automatic && stress::chance(rng, 0.2))
                n = stress::uniform(rng, calibrated_min, calibrated_min + 400000);
            const auto host = static_cast<Host>(stress::uniform(rng, 0, 2));
            Compute compute;
            compute.use_saxpy = !options.in_place && stress::chance(rng, 0.5);
            compute.alpha = stress::uniform_float(rng, -2.0f, 2.0f);
            compute.c = stress::uniform_float(rng, -1.0f, 1.0f);
            compute.iterations = stress::u32(stress::uniform(rng, 1, 12));
            // The first run fails at one of its chunks; later ones now and then, at an index
            // that may lie past the run's last chunk: then nothing fails and the run must
            // simply be right.
            if (first) {
                n = std::max<std::size_t>(n, 1000);
                const std::size_t per_chunk = (n + options.chunking.value() - 1) /
                                              options.chunking.value();
                compute.throw_at = stress::uniform(rng, 0, (n + per_chunk - 1) / per_chunk - 1);
            } else if (!must_work && stress::chance(rng, 0.15)) {
                compute.throw_at = stress::uniform(rng, 0, automatic ? 8 : 12);
            }
            first = false;
            const std::string run =
                describe(options) + "; run " + std::to_string(r) + " of " + std::to_string(n) +
                " floats from " + to_string(host) + " host memory, " +
                (compute.use_saxpy ? "fill+saxpy" : "busy") +
                (compute.throw_at == static_cast<std::size_t>(-1)
                     ? std::string()
                     : ", failing at chunk " + std::to_string(compute.throw_at)) +
                (must_work ? ", after a failed run" : "");
            CAPTURE(run);
            bool threw = false;
            std::string failure;
            try {
                failure = run_once(pipeline, n, host, compute, rng, totals, threw);
            } catch (const std::exception& e) {
                failure = std::string("exception: ") + e.what();
            }
            REQUIRE(failure == "");
            must_work = threw;
        }
    } while (!deadline.passed());

    MESSAGE(totals.pipelines << " pipelines, " << totals.runs << " checked runs in "
                             << clock.seconds() << " s (" << totals.by_host[0] << " pinned, "
                             << totals.by_host[1] << " vectors, " << totals.by_host[2]
                             << " pointers; " << totals.calibrated
                             << " planned by a fitted model): "
                             << totals.chunks << " chunks, " << totals.elements
                             << " elements; " << totals.throws
                             << " planned failures, each followed by a correct run");
    CHECK(totals.throws >= 1);
    CHECK(totals.runs >= totals.throws);
}
