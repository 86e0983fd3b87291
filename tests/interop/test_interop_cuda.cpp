// Interop cases that only CUDA has: pointers inside an allocation (borrowed, never adopted), the
// default streams (refused), events of another context (accepted: CUDA lets any stream wait for
// them). Skipped, with the reason, on other backends. Built only where cuda.h is found.
#include "../support.hpp"
#include "cuda_functions.hpp"
#include "native_api.hpp"

#include <cstdint>

namespace {

using dualrt::Ownership;
using test::native::Kind;
using test::native::NativeHandle;
using test::native::Owned;

// The native API when the suite runs on CUDA, else nullptr after a "SKIPPED: reason" message.
test::native::Api* cuda_or_skip() {
    const dualrt::Backend backend = test::device().backend();
    if (backend != dualrt::Backend::cuda) {
        MESSAGE("SKIPPED: a CUDA case, and the suite runs on "
                << std::string(dualrt::to_string(backend)));
        return nullptr;
    }
    std::string why_not;
    test::native::Api* api = test::native::api(backend, why_not);
    if (api == nullptr) MESSAGE("SKIPPED: " << why_not);
    return api;
}

}  // namespace

TEST_CASE("interop (CUDA): a pointer inside an allocation is borrowed but not adopted; the "
          "default streams are refused") {
    test::native::Api* api = cuda_or_skip();
    if (api == nullptr) return;
    const dualrt::Device& device = test::device();
    const NativeHandle context = device.native_context();
    test::Random rnd;
    INFO("seed " << rnd.seed);
    // 2 MiB: no driver rounds that allocation up, so a float more is past its end.
    constexpr std::size_t bytes = std::size_t{2} << 20;
    Owned memory(*api, Kind::buffer, context, api->create_buffer(context, bytes));
    const NativeHandle inside = memory.get() + 256;
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "needs its start",
                       dualrt::wrap_buffer<float>(device, dualrt::cuda_handle(inside), 16,
                                                  Ownership::adopt));
    CHECK_DUALRT_ERROR(dualrt::Errc::out_of_range, "reach past",
                       dualrt::wrap_buffer<float>(device, dualrt::cuda_handle(inside),
                                                  (bytes - 256) / sizeof(float) + 1,
                                                  Ownership::borrow));
    const auto value = rnd.bits<std::uint32_t>();
    {
        auto part = dualrt::wrap_buffer<std::uint32_t>(device, dualrt::cuda_handle(inside), 960,
                                                       Ownership::borrow);
        auto q = device.create_queue();
        q.fill(part, value);
        std::vector<std::uint32_t> out(960, test::poison_u32);
        q.copy(out, part, dualrt::Sync::blocking);
        CHECK(test::differences(out, std::vector<std::uint32_t>(960, value)) == "");
    }
    CHECK(api->allocated(context, memory.get()) == std::optional<bool>(true));

    for (const CUstream special : {CU_STREAM_LEGACY, CU_STREAM_PER_THREAD})
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "default streams",
                           dualrt::wrap_queue(device, dualrt::cuda_handle(special),
                                              Ownership::borrow));
}

TEST_CASE("interop (CUDA): a dualrt queue waits for an event of another context") {
    test::native::Api* api = cuda_or_skip();
    if (api == nullptr) return;
    const dualrt::Device& device = test::device();
    test::Random rnd;
    INFO("seed " << rnd.seed);
    Owned other(*api, Kind::context, 0, api->create_context(device));
    Owned stream(*api, Kind::queue, other.get(), api->create_queue(other.get(), true));
    Owned event(*api, Kind::event, other.get(), api->record_event(other.get(), stream.get(), true));
    const auto wrapped = dualrt::wrap_event(device, dualrt::cuda_handle(event.get()),
                                            Ownership::borrow);
    auto q = device.create_queue();
    q.wait(wrapped);
    CHECK(test::run_saxpy(q, rnd.size(1, 100'000), rnd.engine) == "");
    CHECK(wrapped.is_complete());
}
