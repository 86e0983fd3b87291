// Interop inwards (interop.hpp) on the suite's device, written once for both backends: objects
// made natively, as another library would (tests/interop/native_api.hpp), wrapped and used through
// dualrt (copies staged and by DMA, fills, launches, events, waits, a Pipeline on a wrapped
// context), checked against the host on fresh random inputs with poisoned outputs. A borrowed
// handle must still work after dualrt's wrapper is gone (and, on OpenCL, its reference count be
// back where it was); an adopted one must be released (OpenCL: its count drops; CUDA: freed
// memory leaves the driver's table). The backend-specific refusals are in
// tests/interop/test_interop_{opencl,cuda}.cpp.
#include "interop/native_api.hpp"
#include "interop/reference_counts.hpp"
#include "support.hpp"

#include <cstdint>
#include <optional>

namespace {

using dualrt::Ownership;
using test::native::Kind;
using test::native::drop_staging_events;
using test::native::Owned;
using test::native::settles_to;

// The native API of the suite's device, or nullptr after a "SKIPPED: reason" message.
test::native::Api* native_api() {
    std::string why_not;
    test::native::Api* api = test::native::api(test::device().backend(), why_not);
    if (api == nullptr) MESSAGE("SKIPPED: no native API to make objects with: " << why_not);
    return api;
}

std::size_t float_bytes(std::size_t n) { return n * sizeof(float); }

// What every case starts from. A case returns at once when `api` is null (a skip, reported).
struct NativeCase {
    test::native::Api* api = native_api();
    const dualrt::Device& device = test::device();
    const test::native::NativeHandle context = device.native_context();
    test::Random rnd;
};

}  // namespace

TEST_CASE_FIXTURE(NativeCase, "interop: a borrowed queue and buffers run copies, fills, launches "
                  "and events in order with native work, and stay the application's") {
    if (api == nullptr) return;
    INFO("seed " << rnd.seed);
    // Over 1 MiB, so that the copies from std::vector go through the staging pool.
    const std::size_t n = rnd.size(300'000, 400'000);
    const float a = rnd.uniform(-2.0f, 2.0f);
    const auto xs = rnd.floats(n);
    const auto ys = rnd.floats(n);

    Owned queue(*api, Kind::queue, context, api->create_queue(context, true));
    Owned x(*api, Kind::buffer, context, api->create_buffer(context, float_bytes(n)));
    Owned y(*api, Kind::buffer, context, api->create_buffer(context, float_bytes(n)));
    const auto queue_references = api->references(Kind::queue, queue.get());
    const auto buffer_references = api->references(Kind::buffer, x.get());

    std::vector<float> result(n, test::poison_float());
    {
        auto q = dualrt::wrap_queue(device, api->tag(queue.get()), Ownership::borrow);
        auto dx = dualrt::wrap_buffer<float>(device, api->tag(x.get()), n, Ownership::borrow);
        auto dy = dualrt::wrap_buffer<float>(device, api->tag(y.get()), n, Ownership::borrow);
        CHECK(q.native_handle() == queue.get());
        CHECK(dx.native_handle() == x.get());
        CHECK(q.device() == device);

        api->write(context, queue.get(), x.get(), 0, xs.data(), float_bytes(n));  // native first
        q.copy(dy, ys);  // staged: the same queue, after the native write
        const dualrt::Event start = q.record();
        q.launch(device.kernel("saxpy"), n, dualrt::Range{}, static_cast<std::uint32_t>(n), a, dx,
                 dy);
        const dualrt::Event end = q.record();
        q.copy(result, dy, dualrt::Sync::blocking);
        CHECK(test::saxpy_differences(result, a, xs, ys) == "");
        CHECK(dualrt::Event::elapsed_ms(start, end) >= 0.0);

        // A fill through dualrt, then pinned DMA copies of a view, then a native read after them.
        const float value = rnd.uniform(-4.0f, 4.0f);
        q.fill(dx.view(16, 32), value);
        auto pinned = device.alloc_host<float>(32);
        std::fill(pinned.begin(), pinned.end(), test::poison_float());
        q.copy(pinned, dx.view(16, 32));
        q.finish();
        CHECK(test::differences(std::vector<float>(pinned.begin(), pinned.end()),
                                std::vector<float>(32, value)) == "");
        std::vector<float> native_view(32, test::poison_float());
        api->read(context, queue.get(), x.get(), float_bytes(16), native_view.data(),
                  float_bytes(32));
        CHECK(test::differences(native_view, std::vector<float>(32, value)) == "");
    }
    // dualrt is done: the handles are still the application's, and work.
    std::vector<float> after(n, test::poison_float());
    api->read(context, queue.get(), y.get(), 0, after.data(), float_bytes(n));
    CHECK(test::differences(after, result) == "");
    api->finish(context, queue.get());
    CHECK(settles_to(*api, Kind::buffer, x.get(), buffer_references));
    // A driver may keep the last command that used a buffer (PoCL does, for migrations), and
    // with it a reference to its queue, as long as the buffer lives: the queue's count is read
    // once the buffers are gone.
    x.reset();
    y.reset();
    if (drop_staging_events(device))
        CHECK(settles_to(*api, Kind::queue, queue.get(), queue_references));
}

TEST_CASE_FIXTURE(NativeCase, "interop: adopted handles are released with the last dualrt object "
                  "made around them") {
    if (api == nullptr) return;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1, 4096);

    Owned queue(*api, Kind::queue, context, api->create_queue(context, true));
    Owned buffer(*api, Kind::buffer, context, api->create_buffer(context, float_bytes(n)));
    Owned event(*api, Kind::event, context, api->record_event(context, queue.get(), true));
    api->finish(context, queue.get());
    // The driver's own hold on the marker ends once the marker completes, a little after finish
    // on PoCL, which drops it from a thread of its own: read before that (seen under ASan), the
    // counts below were one too high. Where the driver counts references, the event's is then the
    // test's own alone (as tests/interop/test_interop_opencl.cpp reads it on every OpenCL driver).
    if (api->references(Kind::event, event.get()))
        REQUIRE(settles_to(*api, Kind::event, event.get(), 1u));
    // Where the driver counts references, one more of the test's own lets it read the count
    // after dualrt has released the adopted one.
    const bool counted = api->retain(Kind::queue, queue.get()) &&
                         api->retain(Kind::buffer, buffer.get()) &&
                         api->retain(Kind::event, event.get());
    const auto count_before = [&](Kind kind, test::native::NativeHandle handle) {
        const auto count = api->references(kind, handle);
        return count ? std::optional<unsigned>(*count - 1) : std::nullopt;  // less the adopted
    };
    const auto queue_after = count_before(Kind::queue, queue.get());
    const auto event_after = count_before(Kind::event, event.get());
    const auto buffer_after = count_before(Kind::buffer, buffer.get());
    const auto value = rnd.bits<std::uint32_t>();
    dualrt::Buffer<std::uint32_t> view;
    {
        auto q = dualrt::wrap_queue(device, api->tag(queue.get()), Ownership::adopt);
        auto whole = dualrt::wrap_buffer<std::uint32_t>(device, api->tag(buffer.get()), n,
                                                        Ownership::adopt);
        auto e = dualrt::wrap_event(device, api->tag(event.get()), Ownership::adopt);
        q.wait(e);
        e.wait();
        CHECK(e.is_complete());
        q.fill(whole, value);
        view = whole.view(n - 1, 1);
        std::vector<std::uint32_t> last(1, test::poison_u32);
        q.copy(last, view, dualrt::Sync::blocking);
        CHECK(last[0] == value);
    }
    if (counted) {
        api->finish(context, queue.get());
        CHECK(settles_to(*api, Kind::event, event.get(), event_after));
        CHECK(settles_to(*api, Kind::buffer, buffer.get(), *buffer_after + 1));  // the view's
        view = {};
        CHECK(settles_to(*api, Kind::buffer, buffer.get(), buffer_after));
        buffer.reset();  // it may hold its last command, and that its queue (see above)
        CHECK(settles_to(*api, Kind::queue, queue.get(), queue_after));
        return;  // the Owned objects release the test's own references
    }
    // CUDA: no counts. Freed memory leaves the driver's table of allocations; streams and events
    // cannot be asked after destruction (compute-sanitizer's run of this suite watches them).
    queue.give_away();
    event.give_away();
    CHECK(api->allocated(context, buffer.get()) == std::optional<bool>(true));
    view = {};
    CHECK(api->allocated(context, buffer.give_away()) == std::optional<bool>(false));
}

TEST_CASE_FIXTURE(NativeCase, "interop: dualrt queues wait for native events, which time native "
                  "work where the driver timed it") {
    if (api == nullptr) return;
    INFO("seed " << rnd.seed);
    const std::size_t n = rnd.size(1000, 200'000);
    const auto data = rnd.float_bits(n);

    Owned native_queue(*api, Kind::queue, context, api->create_queue(context, true));
    Owned buffer(*api, Kind::buffer, context, api->create_buffer(context, float_bytes(n)));
    Owned before(*api, Kind::event, context, api->record_event(context, native_queue.get(), true));
    api->write(context, native_queue.get(), buffer.get(), 0, data.data(), float_bytes(n));
    Owned written(*api, Kind::event, context,
                  api->record_event(context, native_queue.get(), true));

    auto q = device.create_queue();
    auto wrapped = dualrt::wrap_buffer<float>(device, api->tag(buffer.get()), n, Ownership::borrow);
    const auto start = dualrt::wrap_event(device, api->tag(before.get()), Ownership::borrow);
    const auto done = dualrt::wrap_event(device, api->tag(written.get()), Ownership::borrow);
    q.wait(done);  // another queue: dualrt's own, after the native write
    std::vector<float> out(n, test::poison_float());
    q.copy(out, wrapped, dualrt::Sync::blocking);
    CHECK(test::differences(out, data) == "");
    CHECK(done.is_complete());
    CHECK(dualrt::Event::elapsed_ms(start, done) >= 0.0);
    api->finish(context, native_queue.get());

    // An event the driver did not time: a marker of a queue without profiling (OpenCL), a
    // CUevent made with CU_EVENT_DISABLE_TIMING (CUDA).
    Owned plain_queue(*api, Kind::queue, context, api->create_queue(context, false));
    Owned untimed(*api, Kind::event, context,
                  api->record_event(context, plain_queue.get(), false));
    const auto no_time = dualrt::wrap_event(device, api->tag(untimed.get()), Ownership::borrow);
    no_time.wait();
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "carries no timestamp",
                       dualrt::Event::elapsed_ms(start, no_time));
}

TEST_CASE_FIXTURE(NativeCase, "interop: a borrowed queue without profiling orders work; timing "
                  "its events says why it cannot") {
    if (api == nullptr) return;
    INFO("seed " << rnd.seed);
    Owned queue(*api, Kind::queue, context, api->create_queue(context, false));
    auto q = dualrt::wrap_queue(device, api->tag(queue.get()), Ownership::borrow);
    const dualrt::Event start = q.record();
    CHECK(test::run_saxpy(q, rnd.size(1, 100'000), rnd.engine) == "");
    const dualrt::Event end = q.record();
    end.wait();
    CHECK(end.is_complete());
    if (device.backend() == dualrt::Backend::opencl) {
        // OpenCL keeps timestamps only on queues created with CL_QUEUE_PROFILING_ENABLE.
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "CL_QUEUE_PROFILING_ENABLE",
                           dualrt::Event::elapsed_ms(start, end));
    } else {
        CHECK(dualrt::Event::elapsed_ms(start, end) >= 0.0);  // every CUDA stream can time
    }
}

TEST_CASE_FIXTURE(NativeCase, "interop: a wrapped context runs kernels and a Pipeline whose "
                  "compute runs on a borrowed queue") {
    if (api == nullptr) return;
    INFO("seed " << rnd.seed);
    const auto device_handle = api->tag(device.native_handle());
    Owned created(*api, Kind::context, 0, api->create_context(device));
    const auto created_references = api->references(Kind::context, created.get());
    {
        auto wrapped = dualrt::wrap_device(api->tag(created.get()), device_handle,
                                           Ownership::borrow);
        CHECK(wrapped.info().wrapped_context);
        CHECK(wrapped.name() == device.name());
        CHECK(wrapped.native_context() == created.get());
        CHECK(wrapped != device);
        auto q = wrapped.create_queue();
        // Too small to be staged: a device's staging pool lives until the process ends and would
        // keep the wrapped context that long (docs/guide.md, "Native handles"). The listed device
        // of the same GPU stages from the same size; asking the wrapped one would make its pool.
        const std::size_t unstaged =
            device.staging_stats().min_staged_upload_bytes / sizeof(float) - 1;
        CHECK(test::run_saxpy(q, rnd.size(1, unstaged), rnd.engine) == "");
        const std::vector<float> four(4, 1.0f);
        CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "wrapped context",
                           q.copy(device.alloc<float>(4), four));

        Owned native_queue(*api, Kind::queue, created.get(),
                           api->create_queue(created.get(), true));
        auto borrowed = dualrt::wrap_queue(wrapped, api->tag(native_queue.get()),
                                           Ownership::borrow);
        const std::size_t n = rnd.size(50'000, 300'000);
        const float a = rnd.uniform(-2.0f, 2.0f);
        const auto input = rnd.floats(n);
        std::vector<float> output(n, test::poison_float());
        dualrt::PipelineOptions options;
        options.in_place = true;
        options.chunking = dualrt::Chunking::count(rnd.size(2, 6));
        // The Pipeline's own pinned buffers stage the vectors; they go with the Pipeline.
        dualrt::Pipeline pipeline(wrapped, options);
        const dualrt::Kernel saxpy = wrapped.kernel("saxpy");
        const auto report = pipeline.run(input, output, [&](dualrt::Chunk<float, float>& c) {
            // The chunk is on the device once the pipeline's compute queue gets here.
            borrowed.wait(c.queue.record());
            borrowed.launch(saxpy, c.size(), dualrt::Range{},
                            static_cast<std::uint32_t>(c.size()), a, c.input, c.output);
            c.queue.wait(borrowed.record());  // the download waits for the borrowed queue
        });
        CHECK(report.chunks == options.chunking.value());
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (!test::saxpy_element_ok(output[i], a, input[i], input[i])) ++wrong;
        CHECK(wrong == 0);
    }
    CHECK(settles_to(*api, Kind::context, created.get(), created_references));
    // The borrowed context still works once dualrt is done with it.
    Owned still(*api, Kind::buffer, created.get(), api->create_buffer(created.get(), 64));
    CHECK(still.get() != 0);
}

TEST_CASE_FIXTURE(NativeCase, "interop: copies between a wrapped context's buffers and the listed "
                  "device's, on either device's queue") {
    if (api == nullptr) return;
    INFO("seed " << rnd.seed);
    // Not released at the end: copies between devices keep the wrapped device's staging pool and
    // side queue for the process (docs/guide.md, "Native handles"), so no reference count check.
    const auto created = api->create_context(device);
    auto wrapped = dualrt::wrap_device(api->tag(created), api->tag(device.native_handle()),
                                       Ownership::adopt);
    const std::size_t n = rnd.size(1, 300'000);
    const auto input = rnd.floats(n);
    auto on_wrapped = wrapped.alloc<float>(n), back_on_wrapped = wrapped.alloc<float>(n);
    auto on_listed = device.alloc<float>(n);
    auto wrapped_queue = wrapped.create_queue(), listed_queue = device.create_queue();
    wrapped_queue.copy(on_wrapped, input, dualrt::Sync::blocking);
    wrapped_queue.fill(back_on_wrapped, test::poison_float());
    listed_queue.fill(on_listed, test::poison_float());
    // Both fills are done before either subcase's copies: queues order nothing between them.
    wrapped_queue.finish();
    listed_queue.finish();
    std::vector<float> output(n, test::poison_float());
    SUBCASE("on the listed device's queue") {
        listed_queue.copy(on_listed, on_wrapped);       // from the wrapped context
        listed_queue.copy(back_on_wrapped, on_listed);  // into it
        listed_queue.finish();
    }
    SUBCASE("on the wrapped device's queue") {
        wrapped_queue.copy(on_listed, on_wrapped);
        wrapped_queue.copy(back_on_wrapped, on_listed);
        wrapped_queue.finish();
    }
    listed_queue.copy(output, on_listed, dualrt::Sync::blocking);
    CHECK(test::differences(output, input) == "");
    std::fill(output.begin(), output.end(), test::poison_float());
    wrapped_queue.copy(output, back_on_wrapped, dualrt::Sync::blocking);
    CHECK(test::differences(output, input) == "");
    CHECK(on_wrapped.device() == wrapped);
    CHECK(on_listed.device() == device);
}

TEST_CASE_FIXTURE(NativeCase, "interop: an adopted context is released with the last object made "
                  "on it") {
    if (api == nullptr) return;
    INFO("seed " << rnd.seed);
    Owned created(*api, Kind::context, 0, api->create_context(device));
    const bool counted = api->retain(Kind::context, created.get());
    dualrt::Queue survivor;
    {
        auto adopted = dualrt::wrap_device(api->tag(created.get()),
                                           api->tag(device.native_handle()), Ownership::adopt);
        survivor = adopted.create_queue();
    }
    CHECK(test::run_saxpy(survivor, rnd.size(1, 10'000), rnd.engine) == "");  // still alive
    survivor = {};
    if (counted) {
        CHECK(settles_to(*api, Kind::context, created.get(), 1u));
        return;
    }
    created.give_away();  // CUDA: destroyed by dualrt (cuCtxDestroy), which cannot be asked after
}

TEST_CASE_FIXTURE(NativeCase, "interop: handles of another context, sizes past the allocation, "
                  "null handles and handles of the other backend are refused, and nothing is "
                  "taken over") {
    if (api == nullptr) return;
    using dualrt::Errc;

    Owned other_context(*api, Kind::context, 0, api->create_context(device));
    Owned other_queue(*api, Kind::queue, other_context.get(),
                      api->create_queue(other_context.get(), true));
    Owned other_buffer(*api, Kind::buffer, other_context.get(),
                       api->create_buffer(other_context.get(), 256));
    // 2 MiB: no driver rounds that allocation up, so a float more is past its end.
    constexpr std::size_t bytes = std::size_t{2} << 20;
    Owned buffer(*api, Kind::buffer, context, api->create_buffer(context, bytes));
    const auto references = api->references(Kind::buffer, buffer.get());

    CHECK_DUALRT_ERROR(Errc::out_of_range, "reach past",
                       dualrt::wrap_buffer<float>(device, api->tag(buffer.get()),
                                                  bytes / sizeof(float) + 1, Ownership::borrow));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "wrap that context first",
                       dualrt::wrap_buffer<float>(device, api->tag(other_buffer.get()), 4,
                                                  Ownership::adopt));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "wrap that context first",
                       dualrt::wrap_queue(device, api->tag(other_queue.get()), Ownership::adopt));
    const dualrt::Backend other_backend = device.backend() == dualrt::Backend::cuda
                                              ? dualrt::Backend::opencl
                                              : dualrt::Backend::cuda;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "a handle of the",
                       dualrt::wrap_buffer<float>(
                           device, dualrt::ForeignHandle{other_backend, buffer.get()}, 4,
                           Ownership::adopt));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "is null",
                       dualrt::wrap_queue(device, api->tag(0), Ownership::adopt));
    // A device handle dualrt does not list: compared with the listed ones, never dereferenced.
    CHECK_DUALRT_ERROR(Errc::not_found, "is not one of the",
                       dualrt::wrap_device(api->tag(other_context.get()), api->tag(0x12345),
                                           Ownership::adopt));
    // Everything refused is still the application's, untouched and working.
    CHECK(api->references(Kind::buffer, buffer.get()) == references);
    auto wrapped = dualrt::wrap_buffer<float>(device, api->tag(buffer.get()),
                                              bytes / sizeof(float), Ownership::borrow);
    CHECK(wrapped.size() == bytes / sizeof(float));
}
