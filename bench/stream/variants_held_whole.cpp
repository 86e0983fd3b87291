// The variants of pinned memory held whole: HostBuffer views and registered application memory
// (HostBuffer::view, Device::register_host).
#include "variants.hpp"

#include <cstdlib>
#include <memory>
#include <new>

namespace dualrt::samples::stream {
namespace {

// Copies every block through views of three whole HostBuffers (dualrt's own or registered),
// which `owner` keeps alive.
PreparedStream stream_through_views(StreamBench& bench, std::shared_ptr<const void> owner,
                                    const HostBuffer<float>& a, const HostBuffer<float>& b,
                                    const HostBuffer<float>& c) {
    return bench.prepare(bench.contiguous(a.data(), b.data(), c.data()),
                         [&bench, owner, a = &a, b = &b, c = &c](Block& block) {
                             block.queue.copy(block.exact.a, a->view(block.offset, block.count));
                             block.queue.copy(block.exact.b, b->view(block.offset, block.count));
                             bench.triad(block);
                             block.queue.copy(c->view(block.offset, block.count), block.exact.c);
                         });
}

// Memory the application allocated itself. Page-aligned and a whole number of pages, so that
// registering pins exactly these pages and OpenCL's CL_MEM_USE_HOST_PTR can use them in place.
struct FreeMemory {
    void operator()(float* memory) const { std::free(memory); }
};
using AppMemory = std::unique_ptr<float[], FreeMemory>;

AppMemory allocate_app_memory(std::size_t elements) {
    constexpr std::size_t page = 4096;
    const std::size_t bytes = (elements * sizeof(float) + page - 1) / page * page;
    AppMemory memory(static_cast<float*>(std::aligned_alloc(page, bytes)));
    if (!memory) throw std::bad_alloc();
    return memory;
}

}  // namespace

// One HostBuffer per array, each block copied through host.view(offset, count).
PreparedStream pinned_view(StreamBench& bench) {
    const std::size_t n = bench.job().elements;
    const Device& device = bench.device();
    struct Arrays {
        HostBuffer<float> a, b, c;
    };
    auto arrays = std::make_shared<Arrays>(
        Arrays{device.alloc_host<float>(n), device.alloc_host<float>(n),
               device.alloc_host<float>(n)});
    return stream_through_views(bench, arrays, arrays->a, arrays->b, arrays->c);
}

// The application's own arrays, registered once (outside the timing, as pinning is slow) and
// copied through views of the registered buffers.
PreparedStream registered(StreamBench& bench) {
    const std::size_t n = bench.job().elements;
    const Device& device = bench.device();
    struct Arrays {
        // Declared first, freed last: the registered HostBuffers must go (unpinning the memory)
        // while it is still allocated. Every run has finished both queues by then.
        AppMemory a, b, c;
        HostBuffer<float> pinned_a, pinned_b, pinned_c;
    };
    auto arrays = std::make_shared<Arrays>();
    arrays->a = allocate_app_memory(n);
    arrays->b = allocate_app_memory(n);
    arrays->c = allocate_app_memory(n);
    arrays->pinned_a = device.register_host(arrays->a.get(), n);
    arrays->pinned_b = device.register_host(arrays->b.get(), n);
    arrays->pinned_c = device.register_host(arrays->c.get(), n);
    return stream_through_views(bench, arrays, arrays->pinned_a, arrays->pinned_b,
                                arrays->pinned_c);
}

}  // namespace dualrt::samples::stream
