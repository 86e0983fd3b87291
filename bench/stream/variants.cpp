// The variants that need only today's API, and the table of all of them.
#include "variants.hpp"

namespace dualrt::samples::stream {

// One HostBuffer per block of each array: every copy is a whole HostBuffer, DMA.
Measurement pinned_per_block(StreamBench& bench) {
    std::vector<HostBuffer<float>> a, b, c;
    for (const Block& block : bench.blocks())
        for (auto* array : {&a, &b, &c})
            array->push_back(bench.device().alloc_host<float>(block.count));
    return bench.measure(bench.per_block(a, b, c), [&](Block& block) {
        block.queue.copy(block.exact.a, a[block.index]);
        block.queue.copy(block.exact.b, b[block.index]);
        bench.triad(block);
        block.queue.copy(c[block.index], block.exact.c);
    });
}

Measurement stream_through_pointers(StreamBench& bench, float* a, float* b, float* c) {
    return bench.measure(bench.contiguous(a, b, c), [&](Block& block) {
        block.queue.copy(block.exact.a, a + block.offset, block.count);
        block.queue.copy(block.exact.b, b + block.offset, block.count);
        bench.triad(block);
        block.queue.copy(c + block.offset, block.count, block.exact.c);
    });
}

// One HostBuffer per array, copied through plain pointers into it. Until dualrt recognises a
// pointer inside its own pinned memory, these copies are staged like pageable ones.
Measurement pinned_pointer(StreamBench& bench) {
    const std::size_t n = bench.job().elements;
    const Device& device = bench.device();
    HostBuffer<float> a = device.alloc_host<float>(n), b = device.alloc_host<float>(n),
                      c = device.alloc_host<float>(n);
    return stream_through_pointers(bench, a.data(), b.data(), c.data());
}

// Plain std::vectors: dualrt stages blocks from the staging threshold up through its pinned
// pool, and hands smaller ones to the driver's pageable path.
Measurement pageable(StreamBench& bench) {
    const std::size_t n = bench.job().elements;
    std::vector<float> a(n), b(n), c(n);  // value-initialized: every page touched
    return stream_through_pointers(bench, a.data(), b.data(), c.data());
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
        {"pipeline-auto", "Pipeline: inputs(a, b), outputs(c), automatic chunking (ignores the "
                          "block size; a fresh Pipeline per row, its first run untimed)",
         HostMemory::pinned, pipeline_auto},
    };
    return table;
}

}  // namespace dualrt::samples::stream
