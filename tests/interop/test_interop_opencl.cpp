// Interop cases that only OpenCL has: sub-buffers and out-of-order queues (refused), events bound
// to a context (one of another context is refused), user events (a dualrt queue waits for one).
// Skipped, with the reason, on other backends.
#include "../support.hpp"
#include "native_api.hpp"
#include "opencl_functions.hpp"
#include "reference_counts.hpp"
#include "support/environment.hpp"

#include <cstdint>

namespace {

using dualrt::Ownership;
using test::native::Kind;
using test::native::NativeHandle;
using test::native::Owned;

// The OpenCL functions and native API when the suite runs on OpenCL, else nullptr after a
// "SKIPPED: reason" message.
const test::native::OpenClFunctions* opencl_or_skip(test::native::Api*& api) {
    const dualrt::Backend backend = test::device().backend();
    if (backend != dualrt::Backend::opencl) {
        MESSAGE("SKIPPED: an OpenCL case, and the suite runs on "
                << std::string(dualrt::to_string(backend)));
        return nullptr;
    }
    std::string why_not;
    api = test::native::api(backend, why_not);
    const auto* functions = test::native::opencl_functions(why_not);
    if (api == nullptr || functions == nullptr) MESSAGE("SKIPPED: " << why_not);
    return api == nullptr ? nullptr : functions;
}

template <typename Handle>
NativeHandle native(Handle handle) {
    return reinterpret_cast<NativeHandle>(handle);
}

}  // namespace

TEST_CASE("interop (OpenCL): sub-buffers, out-of-order queues and events of another context are "
          "refused") {
    test::native::Api* api = nullptr;
    const auto* cl = opencl_or_skip(api);
    if (cl == nullptr) return;
    const dualrt::Device& device = test::device();
    const NativeHandle context = device.native_context();

    Owned parent(*api, Kind::buffer, context, api->create_buffer(context, 4096));
    const cl_buffer_region region{0, 1024};  // origin 0: aligned on every device
    cl_int status = CL_SUCCESS;
    Owned sub(*api, Kind::buffer, context,
              native(cl->clCreateSubBuffer(reinterpret_cast<cl_mem>(parent.get()),
                                           CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                           &region, &status)));
    test::native::check(status, "clCreateSubBuffer");
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "sub-buffer",
                       dualrt::wrap_buffer<float>(device, api->tag(sub.get()), 16,
                                                  Ownership::borrow));

    const cl_queue_properties out_of_order[] = {CL_QUEUE_PROPERTIES,
                                                CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    const auto id = reinterpret_cast<cl_device_id>(device.native_handle());
    cl_command_queue queue = cl->clCreateCommandQueueWithProperties(
        reinterpret_cast<cl_context>(context), id, out_of_order, &status);
    if (status == CL_INVALID_QUEUE_PROPERTIES) {
        MESSAGE("this device has no out-of-order queues: that refusal is not tested here");
    } else {
        test::native::check(status, "clCreateCommandQueueWithProperties(out of order)");
        Owned owned(*api, Kind::queue, context, native(queue));
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "out-of-order",
                           dualrt::wrap_queue(device, api->tag(owned.get()), Ownership::adopt));
        CHECK(test::native::settles_to(*api, Kind::queue, owned.get(), 1u));
    }

    Owned other_context(*api, Kind::context, 0, api->create_context(device));
    Owned other_queue(*api, Kind::queue, other_context.get(),
                      api->create_queue(other_context.get(), true));
    Owned other_event(*api, Kind::event, other_context.get(),
                      api->record_event(other_context.get(), other_queue.get(), true));
    api->finish(other_context.get(), other_queue.get());  // the driver's own hold on the marker
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "wrap that context first",
                       dualrt::wrap_event(device, api->tag(other_event.get()), Ownership::adopt));
    CHECK(test::native::settles_to(*api, Kind::event, other_event.get(), 1u));
}

TEST_CASE("interop (OpenCL): a dualrt queue waits for a wrapped user event") {
    test::native::Api* api = nullptr;
    const auto* cl = opencl_or_skip(api);
    if (cl == nullptr) return;
    if (dualrt::detail::sync_after_every_enqueue()) {
        // Every enqueue then waits for its work, and the fill behind the gate would wait for a
        // user event that only this thread sets, after the fill: a deadlock by design.
        MESSAGE("SKIPPED: DUALRT_SYNC makes the gated fill wait for its own gate");
        return;
    }
    const dualrt::Device& device = test::device();
    test::Random rnd;
    INFO("seed " << rnd.seed);
    cl_int status = CL_SUCCESS;
    cl_event user = cl->clCreateUserEvent(reinterpret_cast<cl_context>(device.native_context()),
                                          &status);
    test::native::check(status, "clCreateUserEvent");
    const std::size_t n = rnd.size(1, 10'000);
    const auto value = rnd.bits<std::uint32_t>();
    auto q = device.create_queue();
    auto buffer = device.alloc<std::uint32_t>(n);
    q.fill(buffer, test::complement(value), dualrt::Sync::blocking);
    {
        const auto gate = dualrt::wrap_event(device, dualrt::opencl_handle(user), Ownership::adopt);
        q.wait(gate);
        const dualrt::Event filled = q.fill(buffer, value);
        CHECK_FALSE(filled.is_complete());  // held back by the user event
        CHECK_FALSE(gate.is_complete());
        test::native::check(cl->clSetUserEventStatus(user, CL_COMPLETE), "clSetUserEventStatus");
        filled.wait();
        CHECK(gate.is_complete());
    }
    std::vector<std::uint32_t> out(n, test::poison_u32);
    q.copy(out, buffer, dualrt::Sync::blocking);
    CHECK(test::differences(out, std::vector<std::uint32_t>(n, value)) == "");
}
