// The variants that need only today's API, and the table of all of them.
#include "variants.hpp"

#include <memory>
#include <vector>

namespace dualrt::samples::stream {

// One HostBuffer per block of each array: every copy is a whole HostBuffer, DMA.
PreparedStream pinned_per_block(StreamBench& bench) {
    struct Arrays {
        std::vector<HostBuffer<float>> a, b, c;
    };
    auto arrays = std::make_shared<Arrays>();
    for (const Block& block : bench.blocks())
        for (auto* array : {&arrays->a, &arrays->b, &arrays->c})
            array->push_back(bench.device().alloc_host<float>(block.count));
    return bench.prepare(bench.per_block(arrays->a, arrays->b, arrays->c),
                         [&bench, arrays](Block& block) {
                             block.queue.copy(block.exact.a, arrays->a[block.index]);
                             block.queue.copy(block.exact.b, arrays->b[block.index]);
                             bench.triad(block);
                             block.queue.copy(arrays->c[block.index], block.exact.c);
                         });
}

PreparedStream stream_through_pointers(StreamBench& bench, std::shared_ptr<const void> owner,
                                       float* a, float* b, float* c) {
    return bench.prepare(bench.contiguous(a, b, c), [&bench, owner, a, b, c](Block& block) {
        block.queue.copy(block.exact.a, a + block.offset, block.count);
        block.queue.copy(block.exact.b, b + block.offset, block.count);
        bench.triad(block);
        block.queue.copy(c + block.offset, block.count, block.exact.c);
    });
}

// One HostBuffer per array, copied through plain pointers into it. Until dualrt recognises a
// pointer inside its own pinned memory, these copies are staged like pageable ones.
PreparedStream pinned_pointer(StreamBench& bench) {
    const std::size_t n = bench.job().elements;
    const Device& device = bench.device();
    struct Arrays {
        HostBuffer<float> a, b, c;
    };
    auto arrays = std::make_shared<Arrays>(
        Arrays{device.alloc_host<float>(n), device.alloc_host<float>(n),
               device.alloc_host<float>(n)});
    return stream_through_pointers(bench, arrays, arrays->a.data(), arrays->b.data(),
                                   arrays->c.data());
}

// Plain std::vectors: dualrt stages blocks from the staging threshold up through its pinned
// pool, and hands smaller ones to the driver's pageable path.
PreparedStream pageable(StreamBench& bench) {
    const std::size_t n = bench.job().elements;
    struct Arrays {
        std::vector<float> a, b, c;
    };
    // Value-initialized: every page touched.
    auto arrays = std::make_shared<Arrays>(
        Arrays{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)});
    return stream_through_pointers(bench, arrays, arrays->a.data(), arrays->b.data(),
                                   arrays->c.data());
}

const std::vector<Variant>& variants() {
    static const std::vector<Variant> table = {
        {"pinned-per-block", "one HostBuffer per block of each array", HostMemory::pinned,
         pinned_per_block},
        {"pinned-view", "one HostBuffer per array, copied through view(offset, count)",
         HostMemory::pinned, pinned_view},
        {"pinned-pointer", "one HostBuffer per array, copied through data() + offset",
         HostMemory::pinned, pinned_pointer},
        {"registered", "aligned_alloc'd arrays pinned by Device::register_host, copied through "
                       "views", HostMemory::pinned, registered},
        {"pageable", "std::vector per array, copied through data() + offset",
         HostMemory::pageable, pageable},
        // Pipeline's own queues and schedule (lanes) over one HostBuffer per array; compared
        // with the hand-written schedule (pinned-view) as well as with native.
        {"pipeline", "Pipeline: inputs(a, b), outputs(c), HostBuffers, chunks of the block size",
         HostMemory::pinned, pipeline_two_inputs},
        {"pipeline-pairs", "Pipeline: one HostBuffer of (a, b) pairs, outputs c, chunks of the "
                           "block size (kernel triad_pairs)", HostMemory::pinned, pipeline_pairs},
        {"pipeline-replay", "Pipeline: as pipeline, with PipelineOptions::replay (runs after the "
                            "first replay their recorded commands)", HostMemory::pinned,
         pipeline_replay},
        {"pipeline-auto", "Pipeline: inputs(a, b), outputs(c), automatic chunking (ignores the "
                          "block size; a fresh Pipeline per row, its first run untimed)",
         HostMemory::pinned, pipeline_auto},
    };
    return table;
}

}  // namespace dualrt::samples::stream
