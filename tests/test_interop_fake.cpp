// Device-free tests of the core's side of interop (interop.hpp) through the fake backend: who
// releases a wrapped handle and when, that wrapped objects work like dualrt's own, and that the
// core's checks refuse bad handles before a backend sees them.
#include "backend/backend_access.hpp"
#include "fake_backend.hpp"
#include "support.hpp"

#include <numeric>

namespace {

struct FakeDevice {
    std::shared_ptr<test::fake::Device> impl = std::make_shared<test::fake::Device>("fake");
    dualrt::Device device{impl};

    // A native object of this device: memory of `bytes`, or a queue or event (no bytes).
    test::fake::NativeObject native(std::size_t bytes = 0) const {
        test::fake::NativeObject object;
        object.owner = impl.get();
        object.bytes.resize(bytes);
        return object;
    }
};

// The fake device reports the OpenCL backend.
dualrt::ForeignHandle handle_of(test::fake::NativeObject& object) {
    return dualrt::opencl_handle(object.handle());
}

}  // namespace

TEST_CASE("interop: borrowed native memory is used in place and never released") {
    FakeDevice fake;
    auto memory = fake.native(64 * sizeof(float));
    auto queue_object = fake.native();
    {
        auto buffer = dualrt::wrap_buffer<float>(fake.device, handle_of(memory), 64,
                                                 dualrt::Ownership::borrow);
        auto queue = dualrt::wrap_queue(fake.device, handle_of(queue_object),
                                        dualrt::Ownership::borrow);
        CHECK(buffer.size() == 64);
        CHECK(buffer.native_handle() == memory.handle());
        CHECK(queue.native_handle() == queue_object.handle());
        std::vector<float> data(64);
        std::iota(data.begin(), data.end(), 1.0f);
        queue.copy(buffer, data);
        float first = 0.0f;
        std::memcpy(&first, memory.bytes.data(), sizeof first);
        CHECK(first == 1.0f);  // written into the application's memory itself
        std::vector<float> back(4);
        queue.copy(back, buffer.view(60, 4));
        CHECK(back == std::vector<float>{61, 62, 63, 64});
    }
    CHECK(memory.references == 1);
    CHECK(queue_object.references == 1);
}

TEST_CASE("interop: adopted handles are released with the last dualrt object made around them") {
    FakeDevice fake;
    auto memory = fake.native(16);
    auto queue_object = fake.native();
    auto event_object = fake.native();
    dualrt::Buffer<unsigned char> view;
    {
        auto buffer = dualrt::wrap_buffer<unsigned char>(fake.device, handle_of(memory), 16,
                                                         dualrt::Ownership::adopt);
        view = buffer.view(4, 4);
        auto queue = dualrt::wrap_queue(fake.device, handle_of(queue_object),
                                        dualrt::Ownership::adopt);
        auto event = dualrt::wrap_event(fake.device, handle_of(event_object),
                                        dualrt::Ownership::adopt);
        queue.wait(event);
        event.wait();
        CHECK(event.is_complete());
    }
    CHECK(queue_object.references == 0);
    CHECK(event_object.references == 0);
    CHECK(memory.references == 1);  // the view still holds the allocation
    view = {};
    CHECK(memory.references == 0);
}

TEST_CASE("interop: wrapped objects keep their device alive, as dualrt's own do") {
    std::weak_ptr<dualrt::backend::DeviceImpl> watch;
    auto memory = std::make_unique<FakeDevice>();
    auto object = memory->native(8);
    dualrt::Buffer<float> buffer;
    {
        FakeDevice& fake = *memory;
        watch = dualrt::detail::backend_of(fake.device);
        buffer = dualrt::wrap_buffer<float>(fake.device, handle_of(object), 2,
                                            dualrt::Ownership::borrow);
        memory.reset();
    }
    CHECK_FALSE(watch.expired());
    buffer = {};
    CHECK(watch.expired());
}

TEST_CASE("interop: bad handles and counts are refused before the backend sees them") {
    FakeDevice fake;
    auto memory = fake.native(16);
    using dualrt::Errc;
    using dualrt::Ownership;
    const auto cuda_memory = dualrt::cuda_handle(memory.handle());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "a handle of the cuda backend (a CUdeviceptr",
                       dualrt::wrap_buffer<float>(fake.device, cuda_memory, 4, Ownership::borrow));
    CHECK_DUALRT_ERROR(Errc::invalid_argument,
                       "which expects a cl_command_queue (from dualrt::opencl_handle)",
                       dualrt::wrap_queue(fake.device, dualrt::cuda_handle(memory.handle()),
                                          Ownership::borrow));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the cl_mem handle is null",
                       dualrt::wrap_buffer<float>(fake.device, dualrt::opencl_handle(0), 4,
                                                  Ownership::adopt));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the cl_event handle is null",
                       dualrt::wrap_event(fake.device, dualrt::opencl_handle(nullptr),
                                          Ownership::borrow));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "count is 0",
                       dualrt::wrap_buffer<float>(fake.device, handle_of(memory), 0,
                                                  Ownership::borrow));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "overflow the address space",
                       dualrt::wrap_buffer<double>(fake.device, handle_of(memory),
                                                   std::size_t{1} << 62, Ownership::borrow));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the Device is empty",
                       dualrt::wrap_queue(dualrt::Device{}, handle_of(memory), Ownership::borrow));
    CHECK(fake.impl->wrap_calls == 0);
    CHECK(memory.references == 1);

    // wrap_device: the context and its device must be of one backend, the context not null;
    // refused before any backend is loaded.
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "was given for a cuda context",
                       dualrt::wrap_device(dualrt::cuda_handle(memory.handle()),
                                           dualrt::opencl_handle(memory.handle()),
                                           Ownership::borrow));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "the cl_context handle is null",
                       dualrt::wrap_device(dualrt::opencl_handle(0),
                                           dualrt::opencl_handle(memory.handle()),
                                           Ownership::borrow));
}

TEST_CASE("interop: the backend's own refusals reach the caller, and nothing is adopted") {
    FakeDevice fake;
    FakeDevice other;
    auto foreign = other.native(16);
    auto small = fake.native(8);
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "belongs to another fake device",
                       dualrt::wrap_buffer<float>(fake.device, handle_of(foreign), 4,
                                                  dualrt::Ownership::adopt));
    CHECK_DUALRT_ERROR(dualrt::Errc::out_of_range, "smaller",
                       dualrt::wrap_buffer<float>(fake.device, handle_of(small), 3,
                                                  dualrt::Ownership::adopt));
    CHECK(foreign.references == 1);
    CHECK(small.references == 1);
}

TEST_CASE("interop: a backend without the hooks says that it cannot wrap") {
    FakeDevice fake;
    fake.impl->interop = false;
    auto memory = fake.native(16);
    CHECK_DUALRT_ERROR(dualrt::Errc::unavailable, "cannot wrap native device memory",
                       dualrt::wrap_buffer<float>(fake.device, handle_of(memory), 4,
                                                  dualrt::Ownership::borrow));
    CHECK_DUALRT_ERROR(dualrt::Errc::unavailable, "cannot wrap native queues",
                       dualrt::wrap_queue(fake.device, handle_of(memory),
                                          dualrt::Ownership::borrow));
    CHECK_DUALRT_ERROR(dualrt::Errc::unavailable, "cannot wrap native events",
                       dualrt::wrap_event(fake.device, handle_of(memory),
                                          dualrt::Ownership::borrow));
}

TEST_CASE("interop: ownership and handle helpers") {
    CHECK(std::string(dualrt::to_string(dualrt::Ownership::borrow)) == "borrow");
    CHECK(std::string(dualrt::to_string(dualrt::Ownership::adopt)) == "adopt");
    int object = 0;
    const auto from_pointer = dualrt::opencl_handle(&object);
    CHECK(from_pointer.backend == dualrt::Backend::opencl);
    CHECK(from_pointer.value == reinterpret_cast<dualrt::NativeHandle>(&object));
    const unsigned long long device_pointer = 0x7f0000001000ull;  // a CUdeviceptr
    CHECK(dualrt::cuda_handle(device_pointer).value == device_pointer);
    CHECK(dualrt::cuda_handle(3).backend == dualrt::Backend::cuda);  // a CUdevice
}
