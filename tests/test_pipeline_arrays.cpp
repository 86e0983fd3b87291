// Pipeline over several host arrays per side (dualrt::inputs / dualrt::outputs): each array its
// own element type, pinned and pageable mixed, every array chunked alike; c = a + s * b with no
// interleaving; in place with several pairs; a throwing compute function; and the errors of
// arrays that do not fit together.
#include "pipeline_support.hpp"

#include <stdexcept>

namespace {

namespace tp = test::pipeline;
using dualrt::Chunking;
using dualrt::PipelineMode;

const PipelineMode all_modes[] = {PipelineMode::lanes, PipelineMode::two_queues,
                                  PipelineMode::three_queues};

dualrt::Pipeline make_pipeline(PipelineMode mode, Chunking chunking, bool in_place = false) {
    dualrt::PipelineOptions options;
    options.mode = mode;
    options.chunking = chunking;
    options.in_place = in_place;
    return dualrt::Pipeline(test::device(), options);
}

// "" when every c[i] is a correct a[i] + s * b[i].
std::string triad_differences(const float* c, float s, const std::vector<float>& a,
                              const std::vector<float>& b) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!test::saxpy_element_ok(c[i], s, b[i], a[i]))
            return "element " + std::to_string(i) + " is " + test::show(c[i]) + ", expected " +
                   test::show(a[i] + s * b[i]);
    return {};
}

}  // namespace

TEST_CASE("pipeline arrays: c = a + s * b over two inputs and one output, pinned and pageable "
          "mixed") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto triad = tp::kernel("pipeline_test_triad");
    const std::size_t n = 50021;
    const float s = rnd.uniform(-2.0f, 2.0f);
    const auto a = rnd.floats(n), b = rnd.floats(n);
    auto a_pinned = tp::pinned_copy(a);
    for (auto mode : all_modes) {
        for (auto chunking :
             {Chunking::count(7), Chunking::elements(4096), Chunking::automatic()}) {
            for (bool c_pinned : {false, true}) {
                CAPTURE(dualrt::to_string(mode));
                CAPTURE(chunking.str());
                CAPTURE(c_pinned);
                auto pipeline = make_pipeline(mode, chunking);
                std::vector<float> c(n, test::poison_float());
                auto c_host = test::device().alloc_host<float>(n);
                std::fill(c_host.begin(), c_host.end(), test::poison_float());
                std::size_t calls = 0, covered = 0;
                const auto compute = [&](auto& chunk) {
                    ++calls;
                    covered += chunk.size();
                    auto [da, db] = chunk.inputs;
                    auto [dc] = chunk.outputs;
                    CHECK(da.size() == chunk.size());
                    CHECK(db.size() == chunk.size());
                    CHECK(dc.size() == chunk.size());
                    chunk.queue.launch(triad, {chunk.size()}, {}, tp::u32(chunk.size()), s, da, db,
                                       dc);
                };
                // a pinned (DMA), b pageable (staged); c either.
                const auto report = c_pinned
                                        ? pipeline.run(dualrt::inputs(a_pinned, b),
                                                       dualrt::outputs(c_host), compute)
                                        : pipeline.run(dualrt::inputs(a_pinned, b),
                                                       dualrt::outputs(c), compute);
                INFO(report.summary());
                CHECK(calls == report.chunks);
                CHECK(covered == n);
                CHECK(report.input_arrays == 2);
                CHECK(report.output_arrays == 1);
                CHECK(report.staged_input);
                CHECK(report.staged_output == !c_pinned);
                CHECK(triad_differences(c_pinned ? c_host.data() : c.data(), s, a, b) == "");
            }
        }
    }
}

TEST_CASE("pipeline arrays: mixed element types and host memory, each array chunked alike") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto mix = tp::kernel("pipeline_test_mix");
    const std::size_t n = 30011;
    const auto x = rnd.floats(n);
    const auto k = tp::random_u32(rnd, n, 0xffffffffu);
    std::vector<std::uint8_t> w(n);
    for (auto& v : w) v = static_cast<std::uint8_t>(rnd.engine());
    std::vector<float> y_expected(n);
    std::vector<std::uint64_t> z_expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        y_expected[i] = 2.0f * x[i] + static_cast<float>(w[i]);
        z_expected[i] = std::uint64_t{k[i]} * 3u + w[i];
    }
    auto x_pinned = tp::pinned_copy(x);
    for (auto mode : all_modes) {
        for (auto chunking : {Chunking::count(5), Chunking::elements(1000), Chunking::count(1)}) {
            CAPTURE(dualrt::to_string(mode));
            CAPTURE(chunking.str());
            auto pipeline = make_pipeline(mode, chunking);
            std::vector<float> y(n, test::poison_float());
            auto z = test::device().alloc_host<std::uint64_t>(n);
            std::fill(z.begin(), z.end(), test::complement(std::uint64_t{0}));
            using MixChunk = dualrt::Chunk<dualrt::Inputs<float, std::uint32_t, std::uint8_t>,
                                           dualrt::Outputs<float, std::uint64_t>>;
            std::string offsets;  // "" while each array's views match the chunk
            // x pinned, k a pageable vector, w a pageable pointer; y a vector, z pinned.
            const auto report = pipeline.run(
                dualrt::inputs(x_pinned, k, dualrt::host_array(w.data(), n)),
                dualrt::outputs(y, z), [&](MixChunk& chunk) {
                    if (chunk.input<0>().size() != chunk.size() ||
                        chunk.input<2>().bytes() != chunk.size() ||
                        chunk.output<1>().bytes() != 8 * chunk.size())
                        offsets = "chunk " + std::to_string(chunk.index) + " has views of " +
                                  std::to_string(chunk.input<0>().size()) + ", " +
                                  std::to_string(chunk.input<2>().bytes()) + " and " +
                                  std::to_string(chunk.output<1>().bytes()) + " bytes";
                    chunk.queue.launch(mix, {chunk.size()}, {}, tp::u32(chunk.size()),
                                       chunk.input<0>(), chunk.input<1>(), chunk.input<2>(),
                                       chunk.output<0>(), chunk.output<1>());
                });
            INFO(report.summary());
            CHECK(offsets == "");
            CHECK(report.input_arrays == 3);
            CHECK(report.output_arrays == 2);
            CHECK(test::differences(y, y_expected) == "");
            CHECK(test::differences(z.data(), z_expected.data(), n) == "");
        }
    }
}

TEST_CASE("pipeline arrays: in place with several pairs writes each output into its input") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto busy = test::device().kernel("busy");
    const std::size_t n = 20011;
    const auto p = rnd.floats(n), q = rnd.floats(n);
    std::vector<float> p_expected(n), q_expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        p_expected[i] = p[i];
        for (int it = 0; it < 3; ++it) p_expected[i] = std::fma(p_expected[i], 0.9999f, 0.0001f);
        q_expected[i] = q[i];
        for (int it = 0; it < 5; ++it) q_expected[i] = std::fma(q_expected[i], 0.9999f, 0.0001f);
    }
    for (auto mode : all_modes) {
        CAPTURE(dualrt::to_string(mode));
        auto pipeline = make_pipeline(mode, Chunking::count(6), true);
        std::vector<float> p_out(n, test::poison_float()), q_out(n, test::poison_float());
        const auto report =
            pipeline.run(dualrt::inputs(p, q), dualrt::outputs(p_out, q_out), [&](auto& chunk) {
                auto [in_p, in_q] = chunk.inputs;
                auto [out_p, out_q] = chunk.outputs;
                CHECK(out_p.native_handle() == in_p.native_handle());
                CHECK(out_q.native_handle() == in_q.native_handle());
                chunk.queue.launch(busy, {chunk.size()}, {}, out_p, tp::u32(chunk.size()), 3u);
                chunk.queue.launch(busy, {chunk.size()}, {}, out_q, tp::u32(chunk.size()), 5u);
            });
        CHECK(report.device_bytes == report.depth * 2 * ((n + 5) / 6) * sizeof(float));
        CHECK(test::differences(p_out, p_expected) == "");
        CHECK(test::differences(q_out, q_expected) == "");
    }
}

TEST_CASE("pipeline arrays: an exception from the compute function drains and is rethrown") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto triad = tp::kernel("pipeline_test_triad");
    const std::size_t n = 12 * 1000;
    const auto a = rnd.floats(n), b = rnd.floats(n);
    std::vector<float> c(n, test::poison_float());
    for (auto mode : all_modes) {
        CAPTURE(dualrt::to_string(mode));
        auto pipeline = make_pipeline(mode, Chunking::count(12));
        const auto compute = [&](auto& chunk) {
            if (chunk.index == 5) throw std::logic_error("chunk 5");
            chunk.queue.launch(triad, {chunk.size()}, {}, tp::u32(chunk.size()), 1.5f,
                               chunk.template input<0>(), chunk.template input<1>(),
                               chunk.template output<0>());
        };
        CHECK_THROWS_WITH_AS(pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), compute),
                             "chunk 5", std::logic_error);
        std::fill(c.begin(), c.end(), test::poison_float());
        pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), [&](auto& chunk) {
            chunk.queue.launch(triad, {chunk.size()}, {}, tp::u32(chunk.size()), 1.5f,
                               chunk.template input<0>(), chunk.template input<1>(),
                               chunk.template output<0>());
        });
        CHECK(triad_differences(c.data(), 1.5f, a, b) == "");
    }
}

TEST_CASE("pipeline arrays: arrays that do not fit together are errors naming them") {
    using dualrt::Errc;
    dualrt::Pipeline pipeline(test::device());
    const auto nothing = [](auto&) {};
    std::vector<float> a(100), b(99), c(100), d(101);
    std::vector<std::uint16_t> shorts(100);
    CHECK_DUALRT_ERROR(Errc::invalid_argument,
                       "input 1 holds 99 elements, but input 0 holds 100; expected the same count",
                       pipeline.run(dualrt::inputs(a, b), dualrt::outputs(c), nothing));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "output 1 holds 101 elements, but input 0 holds 100",
                       pipeline.run(dualrt::inputs(a, shorts), dualrt::outputs(c, d), nothing));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the pointer of input 1 is null",
                       pipeline.run(
                           dualrt::inputs(a, dualrt::host_array<const float>(nullptr, 100)),
                           dualrt::outputs(c), nothing));

    dualrt::PipelineOptions options;
    options.in_place = true;
    dualrt::Pipeline in_place(test::device(), options);
    std::vector<float> e(100);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the run has 2 inputs and 1 outputs",
                       in_place.run(dualrt::inputs(a, c), dualrt::outputs(e), nothing));
    CHECK_DUALRT_ERROR(Errc::invalid_argument,
                       "the elements of input 1 have 2 bytes and those of output 1 4",
                       in_place.run(dualrt::inputs(a, shorts), dualrt::outputs(c, e), nothing));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "in_place cannot be combined with a halo",
                       in_place.run(dualrt::inputs(a).with_halo(dualrt::Halo::elements(1, 1)),
                                    dualrt::outputs(c), nothing));
}
