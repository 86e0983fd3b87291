// Device-free tests of the core through the fake backend: who keeps whom alive, what a
// moved-from or empty object does, and that checks run before the backend sees a call.
#include "backend/backend_access.hpp"
#include "fake_backend.hpp"
#include "support.hpp"

#include <numeric>

namespace {

dualrt::Device fake_device(const char* name = "fake") {
    return dualrt::Device(std::make_shared<test::fake::Device>(name));
}

}  // namespace

TEST_CASE("ownership: buffers, queues and kernels keep their device alive") {
    std::weak_ptr<dualrt::backend::DeviceImpl> watch;
    dualrt::Buffer<float> buffer;
    dualrt::Queue queue;
    dualrt::Kernel kernel;
    {
        auto device = fake_device();
        watch = dualrt::detail::backend_of(device);
        buffer = device.alloc<float>(16);
        queue = device.create_queue();
        kernel = device.kernel("saxpy");
    }
    CHECK_FALSE(watch.expired());  // the Device value is gone, its children hold the device
    buffer = {};
    queue = {};
    CHECK_FALSE(watch.expired());
    kernel = {};
    CHECK(watch.expired());  // the last child released it
}

TEST_CASE("ownership: a view keeps its allocation alive after the buffer is gone") {
    auto device = fake_device();
    auto queue = device.create_queue();
    std::vector<float> data(64);
    std::iota(data.begin(), data.end(), 0.0f);
    dualrt::Buffer<float> view;
    {
        auto buffer = device.alloc<float>(64);
        queue.copy(buffer, data);
        view = buffer.view(8, 4);
    }
    std::vector<float> out(4);
    queue.copy(out, view);
    CHECK(out == std::vector<float>{8, 9, 10, 11});
}

TEST_CASE("ownership: moved-from and default objects are empty and say so") {
    auto device = fake_device();
    auto moved_to = std::move(device);
    CHECK(moved_to.valid());
    CHECK_FALSE(device.valid());  // NOLINT(bugprone-use-after-move): that is the point
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "empty", device.create_queue());

    auto queue = moved_to.create_queue();
    auto other = std::move(queue);
    CHECK_FALSE(queue.valid());  // NOLINT(bugprone-use-after-move)
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "Queue is empty", queue.finish());
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "Event is empty", dualrt::Event{}.wait());
}

TEST_CASE("checks: objects of another device are refused before the backend sees them") {
    auto first = fake_device("first");
    auto second = fake_device("second");
    auto queue = first.create_queue();
    auto foreign = second.alloc<float>(4);
    std::vector<float> data(4, 1.0f);
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "belongs to device 'second'",
                       queue.copy(foreign, data));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "kernel was made for device 'second'",
                       queue.launch(second.kernel("saxpy"), 4, {}, 4u, 1.0f, foreign, foreign));
    // A copy between two buffers of another device belongs on a queue of that device.
    auto foreign_too = second.alloc<float>(4);
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "enqueue it on a queue of either device",
                       queue.copy(foreign_too, foreign));
    // Waiting for another device's work is allowed: the host waits where the device cannot.
    queue.wait(second.create_queue().record());
}

TEST_CASE("launch: geometry and arguments reach the backend as checked") {
    auto device = fake_device();
    auto queue = device.create_queue();
    auto& backend_queue = static_cast<test::fake::Queue&>(*dualrt::detail::backend_of(queue));
    auto x = device.alloc<float>(1000);
    auto y = device.alloc<float>(1000);
    const auto kernel = device.kernel("saxpy");

    // The default work-group respects the kernel's own limit (128 here, below the device's 1024),
    // and the global range is rounded up to a multiple of it.
    queue.launch(kernel, 1000, {}, 1000u, 2.0f, x, y.view(8, 992));
    CHECK(backend_queue.last_geometry.dims == 1);
    CHECK(backend_queue.last_geometry.local[0] == 128);
    CHECK(backend_queue.last_geometry.global[0] == 1024);
    REQUIRE(backend_queue.last_args.size() == 4);
    CHECK(backend_queue.last_args[3].offset == 8 * sizeof(float));
    CHECK(backend_queue.last_args[3].bytes == 992 * sizeof(float));

    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "kernel's maximum work-group size of 128",
                       queue.launch(kernel, 1000, 256, 1000u, 2.0f, x, y));
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "is a 4-byte 'uint', given a 8-byte",
                       queue.launch(kernel, 1000, {}, std::size_t{1000}, 2.0f, x, y));
}
