// Misuse is reported as dualrt::Error with the right Errc and a message that names the problem,
// before anything reaches the device; afterwards the library keeps working.
#include "support.hpp"

#include <algorithm>
#include <limits>

using dualrt::Errc;

namespace {

struct Twelve {  // 12 bytes: not a power of two, so fill must refuse it
    std::uint32_t a, b, c;
};

std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

}  // namespace

TEST_CASE("errors: kernel lookup and launch arguments") {
    const auto& device = test::device();
    auto q = device.create_queue();
    const auto saxpy = device.kernel("saxpy");
    auto x = device.alloc<float>(16);
    auto y = device.alloc<float>(16);

    // The unknown name is repeated and the known kernels are listed.
    CHECK_DUALRT_ERROR(Errc::not_found, "no_such_kernel", device.kernel("no_such_kernel"));
    CHECK_DUALRT_ERROR(Errc::not_found, "saxpy", device.kernel("no_such_kernel"));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", device.kernel(""));

    // saxpy(uint n, float a, float* x, float* y)
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "saxpy",
                       q.launch(saxpy, 16, dualrt::Range{}, u32(16), 2.0f, x));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "saxpy",
                       q.launch(saxpy, 16, dualrt::Range{}, u32(16), 2.0f, x, y, y));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "saxpy",  // size_t where the kernel takes uint
                       q.launch(saxpy, 16, dualrt::Range{}, std::size_t{16}, 2.0f, x, y));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "saxpy",  // double where the kernel takes float
                       q.launch(saxpy, 16, dualrt::Range{}, u32(16), 2.0, x, y));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "saxpy",  // scalar where a buffer is expected
                       q.launch(saxpy, 16, dualrt::Range{}, u32(16), 2.0f, 1.0f, y));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "saxpy",  // buffer where a scalar is expected
                       q.launch(saxpy, 16, dualrt::Range{}, x, 2.0f, x, y));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "saxpy",  // local memory where a buffer is expected
                       q.launch(saxpy, 16, dualrt::Range{}, u32(16), 2.0f, x,
                                dualrt::local_bytes(64)));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "saxpy",  // an empty buffer
                       q.launch(saxpy, 16, dualrt::Range{}, u32(16), 2.0f, x,
                                dualrt::Buffer<float>{}));

    const auto reverse = device.kernel("group_reverse");  // (float* data, local float*, uint n)
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "group_reverse",
                       q.launch(reverse, 16, 16, x, y, u32(16)));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "local_bytes(0)",
                       q.launch(reverse, 16, 16, x, dualrt::local_bytes(0), u32(16)));
    const auto too_much_local = device.info().local_memory_bytes + 1;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "local memory",
                       q.launch(reverse, 16, 16, x, dualrt::local_bytes(too_much_local), u32(16)));
}

TEST_CASE("errors: launch geometry") {
    const auto& device = test::device();
    auto q = device.create_queue();
    const auto fill = device.kernel("fill");
    auto out = device.alloc<float>(64);
    const auto max_group = device.info().max_work_group_size;

    // One dimension over the limit: the per-dimension or the per-group limit is named.
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "exceeds",
                       q.launch(fill, max_group + 1, max_group + 1, out, 1.0f, u32(64)));
    // Every dimension within its own limit, the work-group as a whole too large.
    const auto& items = device.info().max_work_item_sizes;
    const std::size_t wide = std::min(items[0], max_group);
    const std::size_t tall = std::min(items[1], max_group / wide + 1);
    CAPTURE(wide);
    CAPTURE(tall);
    REQUIRE(wide * tall > max_group);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "maximum work-group size",
                       q.launch(fill, dualrt::Range(wide, tall), dualrt::Range(wide, tall), out,
                                1.0f, u32(64)));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "dimensions",  // 2-D global, 1-D local
                       q.launch(fill, dualrt::Range(8, 8), dualrt::Range(8), out, 1.0f, u32(64)));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "zero",
                       q.launch(fill, 0, dualrt::Range{}, out, 1.0f, u32(64)));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty",
                       q.launch(fill, dualrt::Range{}, dualrt::Range{}, out, 1.0f, u32(64)));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "zero",
                       q.launch(fill, 64, dualrt::Range(0), out, 1.0f, u32(64)));
}

TEST_CASE("errors: copies, views, fills and allocations") {
    const auto& device = test::device();
    auto q = device.create_queue();
    auto buffer = device.alloc<float>(11);
    std::vector<float> ten(10, 1.0f);

    CHECK_DUALRT_ERROR(Errc::invalid_argument, "size mismatch", q.copy(buffer, ten));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "size mismatch", q.copy(ten, buffer));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "size mismatch",
                       q.copy(buffer, ten.data(), ten.size(), dualrt::Sync::blocking));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "size mismatch",
                       q.copy(device.alloc<float>(10), buffer));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "null",
                       q.copy(buffer, static_cast<const float*>(nullptr), 11));

    auto ten_elements = device.alloc<float>(10);
    CHECK_DUALRT_ERROR(Errc::out_of_range, "10-element", ten_elements.view(5, 100));
    CHECK_DUALRT_ERROR(Errc::out_of_range, "10-element", ten_elements.view(11, 0));
    CHECK_DUALRT_ERROR(Errc::out_of_range, "5-element", ten_elements.view(2, 5).view(1, 5));
    // offset * sizeof(float) wraps around to 0: must still be out of range, not a view at 0.
    CHECK_DUALRT_ERROR(Errc::out_of_range, "10-element",
                       ten_elements.view(std::size_t{1} << 62, 1));

    auto hundred = device.alloc<float>(100);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "overlap",
                       q.copy(hundred.view(0, 50), hundred.view(25, 50)));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "overlap", q.copy(hundred, hundred));

    CHECK_DUALRT_ERROR(Errc::invalid_argument, "12", q.fill(device.alloc<Twelve>(4), Twelve{}));

    CHECK_DUALRT_ERROR(Errc::invalid_argument, "0 elements", device.alloc<float>(0));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "0 elements", device.alloc_host<float>(0));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "overflow",
                       device.alloc<double>(std::numeric_limits<std::size_t>::max() / 4));
}

TEST_CASE("errors: out of device memory is out_of_memory, from the backend") {
    // Twice the device's memory in one allocation cannot succeed.
    const auto& device = test::device();
    const auto bytes = static_cast<std::size_t>(2 * device.info().global_memory_bytes);
    CHECK_DUALRT_ERROR(Errc::out_of_memory, "", device.alloc<std::uint8_t>(bytes));
    try {
        device.alloc<std::uint8_t>(bytes);
    } catch (const dualrt::Error& e) {
        INFO("message: " << e.what());
        CHECK(e.backend() == dualrt::to_string(device.backend()));
        CHECK(!e.call().empty());
    }
}

TEST_CASE("errors: empty (default-constructed) objects") {
    const auto& device = test::device();
    auto q = device.create_queue();
    std::vector<float> host(4);
    dualrt::Queue no_queue;
    dualrt::Buffer<float> no_buffer;
    dualrt::Event no_event;

    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", no_queue.record());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", no_queue.finish());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty",
                       no_queue.copy(device.alloc<float>(4), host));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", q.copy(no_buffer, host));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", q.copy(host, no_buffer));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", q.fill(no_buffer, 1.0f));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", no_buffer.view(0, 0));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", q.wait(no_event));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", no_event.wait());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", no_event.is_complete());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty",
                       dualrt::Event::elapsed_ms(no_event, q.record()));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty",
                       q.launch(dualrt::Kernel{}, 1, dualrt::Range{}, 1.0f));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", dualrt::Device{}.create_queue());
}

TEST_CASE("errors: objects of another device are refused") {
    // Needs a second device (another backend, or another OpenCL platform such as PoCL beside a
    // GPU); otherwise this says so.
    dualrt::Device other;
    for (const auto& d : dualrt::devices())
        if (d != test::device()) other = d;
    if (!other.valid()) {
        MESSAGE("only one device: cross-device checks not run");
        return;
    }
    INFO("other device: " << other.name());
    auto q = test::device().create_queue();
    auto foreign = other.alloc<float>(4);
    std::vector<float> host(4);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "belongs to device", q.copy(foreign, host));
    // Named with backend and index: the CUDA and OpenCL views of one GPU share a name.
    const std::string other_label = "'" + other.name() + "' (" +
                                    dualrt::to_string(other.backend()) + " device " +
                                    std::to_string(other.info().index) + ")";
    CHECK_DUALRT_ERROR(Errc::invalid_argument, other_label, q.copy(foreign, host));
    // Copies between the two devices and waits for the other's events are allowed (the
    // multi-device suite tests them); a copy with both buffers elsewhere names all three.
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "enqueue it on a queue of either device",
                       q.copy(other.alloc<float>(4), foreign));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "fill",
                       q.launch(other.kernel("fill"), 4, dualrt::Range{}, foreign, 1.0f, u32(4)));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "fill",
                       q.launch(test::device().kernel("fill"), 4, dualrt::Range{}, foreign, 1.0f,
                                u32(4)));
}

TEST_CASE("errors: the library keeps working after errors") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    const auto& device = test::device();
    auto q = device.create_queue();
    auto buffer = device.alloc<float>(8);
    std::vector<float> wrong(9);
    for (int i = 0; i < 3; ++i) {
        CHECK_THROWS_AS(device.kernel("no_such_kernel"), dualrt::Error);
        CHECK_THROWS_AS(q.copy(buffer, wrong), dualrt::Error);
        CHECK_THROWS_AS(q.launch(device.kernel("saxpy"), 8, dualrt::Range{}, u32(8)),
                        dualrt::Error);
        CHECK_THROWS_AS(device.alloc<float>(0), dualrt::Error);
    }
    CHECK(test::run_saxpy(q, rnd.size(1, 100000), rnd.engine) == "");
}
