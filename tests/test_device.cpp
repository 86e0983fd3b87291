// The device under test describes itself sanely and hands out working objects.
#include "support.hpp"

#include <algorithm>
#include <cstdlib>

TEST_CASE("device: info is filled in and plausible") {
    const auto& device = test::device();
    const auto& info = device.info();
    CHECK(!info.name.empty());
    CHECK(!info.platform.empty());
    CHECK(info.global_memory_bytes > 0);
    CHECK(info.local_memory_bytes > 0);
    CHECK(info.compute_units > 0);
    CHECK(info.max_work_group_size > 0);
    for (int axis = 0; axis < 3; ++axis) {
        CAPTURE(axis);
        CHECK(info.max_work_item_sizes[static_cast<std::size_t>(axis)] > 0);
    }
    CHECK(device.name() == info.name);
    CHECK(device.backend() == info.backend);
}

TEST_CASE("device: the backend is the one DUALRT_BACKEND asked for") {
    const char* asked = std::getenv(dualrt::env_backend);
    const std::string wanted = asked != nullptr && *asked != '\0' ? asked : "auto";
    if (wanted != "auto") CHECK(dualrt::to_string(test::device().backend()) == wanted);

    // The device is listed by its backend at its own index, and that backend is available.
    const auto backend = test::device().backend();
    const auto list = dualrt::devices(backend);
    const auto index = static_cast<std::size_t>(test::device().info().index);
    REQUIRE(index < list.size());
    CHECK(list[index] == test::device());
    const auto statuses = dualrt::backends();
    const auto status = std::find_if(statuses.begin(), statuses.end(),
                                     [&](const auto& s) { return s.backend == backend; });
    REQUIRE(status != statuses.end());
    CHECK(status->available);
    CHECK(status->device_count == list.size());
}

TEST_CASE("device: queues, buffers and kernels belong to it and have native handles") {
    const auto& device = test::device();
    // The device handle may be 0 (CUdevice is an ordinal); the others are real objects.
    CHECK(device.native_context() != 0);

    auto queue = device.create_queue();
    REQUIRE(queue.valid());
    CHECK(queue.device() == device);
    CHECK(queue.native_handle() != 0);

    auto buffer = device.alloc<float>(100);
    REQUIRE(buffer.valid());
    CHECK(buffer.size() == 100);
    CHECK(buffer.bytes() == 400);
    CHECK(buffer.offset_bytes() == 0);
    CHECK(buffer.allocation_bytes() == 400);
    CHECK(buffer.native_handle() != 0);

    auto pinned = device.alloc_host<double>(33);
    REQUIRE(pinned.valid());
    CHECK(pinned.size() == 33);
    CHECK(pinned.bytes() == 33 * sizeof(double));
    REQUIRE(pinned.data() != nullptr);
    for (std::size_t i = 0; i < pinned.size(); ++i) pinned[i] = static_cast<double>(i);  // writable
    CHECK(pinned[32] == 32.0);

    auto saxpy = device.kernel("saxpy");
    REQUIRE(saxpy.valid());
    CHECK(saxpy.name() == "saxpy");
    CHECK(saxpy.param_count() == 4);
    CHECK(saxpy.native_handle() != 0);
    CHECK(device.kernel("group_reverse").param_count() == 3);
    CHECK(device.kernel("index_3d").param_count() == 4);
}
