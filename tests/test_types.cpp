// Device-free parts of the public API: Range, the to_string helpers, Error's fields and message,
// and the checks on empty (default-constructed) objects.
#include "support.hpp"

#include <stdexcept>

using dualrt::Errc;

TEST_CASE("types: Range has OpenCL meaning and prints as WxHxD") {
    const dualrt::Range automatic;
    CHECK(automatic.dims() == 0);
    CHECK(automatic.str() == "auto");

    const dualrt::Range one = 1000;  // implicit from a count
    CHECK(one.dims() == 1);
    CHECK(one[0] == 1000);
    CHECK(one[1] == 1);
    CHECK(one[2] == 1);
    CHECK(one.total() == 1000);
    CHECK(one.str() == "1000");

    const dualrt::Range two(1024, 768);
    CHECK(two.dims() == 2);
    CHECK(two.total() == 1024 * 768);
    CHECK(two.str() == "1024x768");

    const dualrt::Range three(4, 5, 6);
    CHECK(three.dims() == 3);
    CHECK(three[2] == 6);
    CHECK(three.total() == 120);
    CHECK(three.str() == "4x5x6");
    CHECK_THROWS_AS(three[3], std::out_of_range);
}

TEST_CASE("types: to_string names every enumerator") {
    CHECK(std::string(dualrt::to_string(dualrt::Backend::cuda)) == "cuda");
    CHECK(std::string(dualrt::to_string(dualrt::Backend::opencl)) == "opencl");
    CHECK(std::string(dualrt::to_string(dualrt::DeviceType::gpu)) == "GPU");
    CHECK(std::string(dualrt::to_string(dualrt::DeviceType::cpu)) == "CPU");
    const std::pair<Errc, const char*> names[] = {
        {Errc::invalid_argument, "invalid_argument"}, {Errc::out_of_range, "out_of_range"},
        {Errc::not_found, "not_found"},               {Errc::unavailable, "unavailable"},
        {Errc::out_of_memory, "out_of_memory"},       {Errc::compile_error, "compile_error"},
        {Errc::backend_failure, "backend_failure"}};
    for (const auto& [errc, name] : names) CHECK(std::string(dualrt::to_string(errc)) == name);
    CHECK(std::string(dualrt::version_string()) ==
          std::to_string(dualrt::version_major) + "." + std::to_string(dualrt::version_minor) +
              "." + std::to_string(dualrt::version_patch));
}

TEST_CASE("types: Error keeps every field and names them all in its message") {
    dualrt::ErrorInfo info;
    info.errc = Errc::out_of_memory;
    info.backend = "opencl";
    info.call = "clCreateBuffer(context, flags, bytes)";
    info.code = -4;
    info.code_name = "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    info.context = "device 'pocl', 1.0 GiB";
    info.detail = "the device has no room";
    const dualrt::Error error(info);

    CHECK(error.errc() == Errc::out_of_memory);
    CHECK(error.backend() == "opencl");
    CHECK(error.call() == info.call);
    CHECK(error.code() == -4);
    CHECK(error.code_name() == info.code_name);
    CHECK(error.context() == info.context);
    CHECK(error.detail() == info.detail);
    const std::string what = error.what();
    for (const auto& part : {info.backend, info.call, info.code_name, std::string("-4"),
                             info.context, info.detail}) {
        CAPTURE(part);
        CHECK(test::contains(what, part));
    }
    const std::runtime_error& base = error;  // catchable as a standard exception
    CHECK(std::string(base.what()) == what);
}

TEST_CASE("types: argument checks on empty objects need no device") {
    // A core argument check: invalid_argument, naming the public call, not a backend.
    try {
        (void)dualrt::Device{}.info();
        FAIL("Device{}.info() did not throw");
    } catch (const dualrt::Error& e) {
        INFO("message: " << e.what());
        CHECK(e.errc() == Errc::invalid_argument);
        CHECK(test::contains(e.call(), "Device::info"));
        CHECK(!e.detail().empty());
        CHECK(e.backend() != "cuda");
        CHECK(e.backend() != "opencl");
        CHECK(e.code() == 0);
    }
    CHECK(!dualrt::Device{}.valid());
    CHECK(!dualrt::Queue{}.valid());
    CHECK(!dualrt::Event{}.valid());
    CHECK(!dualrt::Kernel{}.valid());
    CHECK(!dualrt::Buffer<float>{}.valid());
    CHECK(dualrt::Buffer<float>{}.size() == 0);
    CHECK(!dualrt::HostBuffer<float>{}.valid());
    CHECK(dualrt::HostBuffer<float>{}.data() == nullptr);
    CHECK(dualrt::local_bytes(96).bytes == 96);

    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", dualrt::Device{}.alloc<float>(1));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", dualrt::Device{}.kernel("saxpy"));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", dualrt::Queue{}.record());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", dualrt::Event{}.wait());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", dualrt::Kernel{}.name());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", dualrt::Buffer<float>{}.native_handle());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", dualrt::Buffer<float>{}.view(0, 0));
}
