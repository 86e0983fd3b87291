// Pipeline halos: each chunk's input view reaches into its neighbours (elements, or whole rows of
// an image), with only the halo that exists at the arrays' ends; the Chunk says where its own
// elements start. A 1-D window and the built-in 2-D stencil, each against the host; halos on
// several inputs; and the errors of halos and chunks that do not fit.
#include "pipeline_support.hpp"
#include "stencil_reference.hpp"

namespace {

namespace tp = test::pipeline;
using dualrt::Chunking;
using dualrt::Halo;
using dualrt::PipelineMode;

const PipelineMode all_modes[] = {PipelineMode::lanes, PipelineMode::two_queues,
                                  PipelineMode::three_queues};

dualrt::Pipeline make_pipeline(PipelineMode mode, Chunking chunking) {
    dualrt::PipelineOptions options;
    options.mode = mode;
    options.chunking = chunking;
    return dualrt::Pipeline(test::device(), options);
}

// "" when the chunk's halo and view sizes are what a halo of `before` and `after` over `total`
// elements gives it.
std::string halo_mismatch(const dualrt::ChunkPlace& chunk, std::size_t view_elements,
                          std::size_t before, std::size_t after, std::size_t total) {
    const std::size_t expected_before = std::min(before, chunk.offset);
    const std::size_t expected_after = std::min(after, total - chunk.offset - chunk.count);
    if (chunk.halo_before == expected_before && chunk.halo_after == expected_after &&
        view_elements == expected_before + chunk.count + expected_after)
        return {};
    return "chunk " + std::to_string(chunk.index) + " at " + std::to_string(chunk.offset) +
           " (" + std::to_string(chunk.count) + " elements) has halo " +
           std::to_string(chunk.halo_before) + "/" + std::to_string(chunk.halo_after) +
           " and a view of " + std::to_string(view_elements) + ", expected " +
           std::to_string(expected_before) + "/" + std::to_string(expected_after);
}

// Runs `compute` over `input` (pageable) or `pinned` (its pinned copy) with `halo`, into `output`.
template <typename In, typename Out, typename Fn>
dualrt::PipelineReport run_with_halo(dualrt::Pipeline& pipeline, bool use_pinned,
                                     const std::vector<In>& input,
                                     const dualrt::HostBuffer<In>& pinned, const Halo& halo,
                                     std::vector<Out>& output, Fn& compute) {
    if (use_pinned)
        return pipeline.run(dualrt::inputs(pinned).with_halo(halo), dualrt::outputs(output),
                            compute);
    return pipeline.run(dualrt::inputs(input).with_halo(halo), dualrt::outputs(output), compute);
}

}  // namespace

TEST_CASE("pipeline halo: a window reaching into the neighbours, at chunk boundaries and ends") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto window = tp::kernel("pipeline_test_window");
    const std::size_t before = 2, after = 1;
    struct Case {
        std::size_t n;
        Chunking chunking;
    };
    // Chunks of 2 elements: the halo before each chunk is all of the previous chunk.
    for (const Case& c : {Case{40009, Chunking::count(1)}, Case{40009, Chunking::count(7)},
                          Case{40009, Chunking::elements(1000)}, Case{40009, Chunking::automatic()},
                          Case{101, Chunking::elements(2)}}) {
        const auto input = tp::random_u32(rnd, c.n);
        const auto expected = tp::window_reference(input, before, after);
        auto pinned = tp::pinned_copy(input);
        for (auto mode : all_modes) {
            for (bool use_pinned : {false, true}) {
                CAPTURE(dualrt::to_string(mode));
                CAPTURE(c.chunking.str());
                CAPTURE(c.n);
                CAPTURE(use_pinned);
                auto pipeline = make_pipeline(mode, c.chunking);
                std::vector<std::uint32_t> output(c.n, test::poison_u32);
                std::string mismatch;
                const auto compute = [&](auto& chunk) {
                    const auto& in = std::get<0>(chunk.inputs);
                    if (mismatch.empty())
                        mismatch = halo_mismatch(chunk, in.size(), before, after, c.n);
                    chunk.queue.launch(window, {chunk.size()}, {}, tp::u32(chunk.size()),
                                       tp::u32(chunk.halo_before), tp::u32(in.size()),
                                       tp::u32(before), tp::u32(after), in, in, 0u,
                                       std::get<0>(chunk.outputs));
                };
                const auto report = run_with_halo(pipeline, use_pinned, input, pinned,
                                                  Halo::elements(before, after), output, compute);
                INFO(report.summary());
                CHECK(mismatch == "");
                CHECK(test::differences(output, expected) == "");
            }
        }
    }
}

TEST_CASE("pipeline halo: several inputs all carry the halo") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto window = tp::kernel("pipeline_test_window");
    const std::size_t n = 25013, reach = 3;
    const auto a = tp::random_u32(rnd, n), b = tp::random_u32(rnd, n);
    auto expected = tp::window_reference(a, reach, reach);
    for (std::size_t i = 0; i < n; ++i) expected[i] += b[i];
    for (auto mode : all_modes) {
        CAPTURE(dualrt::to_string(mode));
        auto pipeline = make_pipeline(mode, Chunking::count(9));
        std::vector<std::uint32_t> output(n, test::poison_u32);
        std::string mismatch;
        pipeline.run(dualrt::inputs(a, b).with_halo(Halo::elements(reach, reach)),
                     dualrt::outputs(output), [&](auto& chunk) {
                         auto [da, db] = chunk.inputs;
                         if (mismatch.empty())
                             mismatch = halo_mismatch(chunk, da.size(), reach, reach, n) +
                                        halo_mismatch(chunk, db.size(), reach, reach, n);
                         chunk.queue.launch(window, {chunk.size()}, {}, tp::u32(chunk.size()),
                                            tp::u32(chunk.halo_before), tp::u32(da.size()),
                                            tp::u32(reach), tp::u32(reach), da, db, 1u,
                                            std::get<0>(chunk.outputs));
                     });
        CHECK(mismatch == "");
        CHECK(test::differences(output, expected) == "");
    }
}

TEST_CASE("pipeline halo: rows of an image through the built-in 3x3 stencil") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto stencil = test::device().kernel("stencil_blur3x3");
    const std::size_t width = 333, height = 517;  // odd sizes: no launch or chunk divides them
    const auto image = rnd.floats(width * height, 0.0f, 1.0f);
    std::vector<float> expected(image.size());
    dualrt::samples::blur3x3_rows(image.data(), expected.data(), width, height, 0, height);
    auto pinned = tp::pinned_copy(image);
    for (auto mode : all_modes) {
        for (auto chunking : {Chunking::count(1), Chunking::count(5),
                              Chunking::elements(64 * width), Chunking::elements(width),
                              Chunking::automatic()}) {
            for (bool use_pinned : {false, true}) {
                CAPTURE(dualrt::to_string(mode));
                CAPTURE(chunking.str());
                CAPTURE(use_pinned);
                auto pipeline = make_pipeline(mode, chunking);
                std::vector<float> output(image.size(), test::poison_float());
                std::string mismatch;
                const auto compute = [&](auto& chunk) {
                    const auto& in = std::get<0>(chunk.inputs);
                    if (mismatch.empty()) {
                        mismatch = halo_mismatch(chunk, in.size(), width, width, image.size());
                        if (chunk.offset % width != 0 || chunk.count % width != 0)
                            mismatch =
                                "chunk " + std::to_string(chunk.index) + " is not whole rows";
                    }
                    chunk.queue.launch(stencil, {width, chunk.rows()}, {}, in,
                                       std::get<0>(chunk.outputs), tp::u32(width),
                                       tp::u32(chunk.rows()), tp::u32(chunk.halo_before / width),
                                       tp::u32(chunk.halo_after / width));
                };
                const auto report = run_with_halo(pipeline, use_pinned, image, pinned,
                                                  Halo::rows(width, 1), output, compute);
                INFO(report.summary());
                CHECK(mismatch == "");
                for (std::size_t size : report.chunk_sizes) CHECK(size % width == 0);
                CHECK(test::differences(output, expected) == "");
            }
        }
    }
}

TEST_CASE("pipeline halo: halos and chunks that do not fit are errors naming both") {
    using dualrt::Errc;
    const auto nothing = [](auto&) {};
    std::vector<float> in(10000), out(10000);
    auto fixed = make_pipeline(PipelineMode::lanes, Chunking::elements(1000));
    CHECK_DUALRT_ERROR(Errc::invalid_argument,
                       "the halo reaches 2000 elements before each chunk, more than a chunk holds "
                       "(1000 elements)",
                       fixed.run(dualrt::inputs(in).with_halo(Halo::elements(2000, 10)),
                                 dualrt::outputs(out), nothing));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "reaches 1500 elements after each chunk",
                       fixed.run(dualrt::inputs(in).with_halo(Halo::elements(0, 1500)),
                                 dualrt::outputs(out), nothing));
    // A halo as large as a chunk is fine, and with a single chunk there is no neighbour.
    CHECK_NOTHROW(fixed.run(dualrt::inputs(in).with_halo(Halo::elements(1000, 1000)),
                            dualrt::outputs(out), nothing));
    auto whole = make_pipeline(PipelineMode::lanes, Chunking::count(1));
    CHECK_NOTHROW(whole.run(dualrt::inputs(in).with_halo(Halo::elements(20000, 20000)),
                            dualrt::outputs(out), nothing));

    CHECK_DUALRT_ERROR(Errc::invalid_argument,
                       "the arrays hold 10000 elements, not whole rows of 300 (Halo::rows); "
                       "expected a multiple of the row width",
                       fixed.run(dualrt::inputs(in).with_halo(Halo::rows(300, 1)),
                                 dualrt::outputs(out), nothing));
    CHECK_DUALRT_ERROR(Errc::invalid_argument,
                       "Chunking::elements(1000) does not cut whole rows of 400 elements",
                       fixed.run(dualrt::inputs(in).with_halo(Halo::rows(400, 1)),
                                 dualrt::outputs(out), nothing));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the row width is 0", Halo::rows(0, 1));
    CHECK(Halo::rows(400, 1).str() == "1 row of 400 before and after");
    CHECK(Halo::rows(400, 2, 0).str() == "2 rows of 400 before, 0 rows after");
    CHECK(Halo::elements(3, 4).str() == "3 before, 4 after");
    CHECK(Halo().str() == "none");
}
