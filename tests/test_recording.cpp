// Recording and replay (Queue::begin_recording, recording.hpp): a replay gives bit for bit what
// the same commands give run one by one, on every path a device records with (DUALRT_RECORDING=
// command_list runs this suite on OpenCL's command list where the device has command buffers);
// what cannot be recorded is an error when it is enqueued, and the queue stays usable.
#include "support.hpp"

#include <dualrt/runtime.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// saxpy (y = a * x + y) `launches` times with scale a + k/1000 on launch k: every launch
// changes y, and a launch lost, repeated or reordered changes the result's bits.
void saxpy_chain(dualrt::Queue& q, const dualrt::Kernel& saxpy, const dualrt::Buffer<float>& x,
                 const dualrt::Buffer<float>& y, int launches, float a) {
    const auto n = static_cast<std::uint32_t>(x.size());
    for (int k = 0; k < launches; ++k)
        q.launch(saxpy, {x.size()}, {}, n, a + static_cast<float>(k) / 1000.0f, x, y);
}

std::vector<float> read(dualrt::Queue& q, const dualrt::Buffer<float>& buffer) {
    std::vector<float> out(buffer.size());
    q.copy(out, buffer, dualrt::Sync::blocking);
    return out;
}

}  // namespace

TEST_CASE("recording: the device says how it records, and DUALRT_RECORDING is obeyed") {
    const auto& info = test::device().info();
    CAPTURE(dualrt::to_string(info.recording));
    const char* forced = std::getenv(dualrt::env_recording);
    if (info.backend == dualrt::Backend::cuda)
        CHECK(info.recording == dualrt::RecordingPath::graph);
    else if (forced != nullptr && std::string(forced) == "command_list")
        CHECK(info.recording == dualrt::RecordingPath::command_list);
    else  // which of the two, the device's extensions decide
        CHECK((info.recording == dualrt::RecordingPath::command_buffer ||
               info.recording == dualrt::RecordingPath::command_list));
}

TEST_CASE("recording: a replay of 1000 launches equals the same launches run one by one, bit for "
          "bit, and a second replay runs them again") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    auto q = device.create_queue();
    const auto saxpy = device.kernel("saxpy");
    const std::size_t n = rnd.size(1, 5000);
    const auto x_host = rnd.floats(n), y_host = rnd.floats(n);
    auto x = device.alloc<float>(n);
    auto y_plain = device.alloc<float>(n);
    auto y_replayed = device.alloc<float>(n);
    q.copy(x, x_host);
    q.copy(y_plain, y_host);
    q.copy(y_replayed, std::vector<float>(n, std::nanf("")), dualrt::Sync::blocking);

    saxpy_chain(q, saxpy, x, y_plain, 1000, 0.5f);
    const auto plain = read(q, y_plain);

    q.begin_recording();
    CHECK(q.recording());
    saxpy_chain(q, saxpy, x, y_replayed, 1000, 0.5f);
    const dualrt::Recording recording = q.end_recording();
    CHECK(!q.recording());
    CHECK(recording.commands() == 1000);
    CHECK(recording.path() == device.info().recording);
    // Recording ran nothing: the buffer still holds its poison.
    CHECK(std::isnan(read(q, y_replayed)[0]));

    q.copy(y_replayed, y_host);
    q.replay(recording).wait();
    CHECK(test::differences(read(q, y_replayed), plain) == "");

    // Again, from the first result: twice the chain.
    saxpy_chain(q, saxpy, x, y_plain, 1000, 0.5f);
    q.replay(recording);
    CHECK(test::differences(read(q, y_replayed), read(q, y_plain)) == "");
}

TEST_CASE("recording: copies from and to pinned memory, between buffers and views, and fills "
          "replay as they run") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    auto q = device.create_queue();
    const std::size_t n = rnd.size(64, 20000);
    auto in = device.alloc_host<float>(n);
    auto out = device.alloc_host<float>(n);
    auto a = device.alloc<float>(n);
    auto b = device.alloc<float>(n);
    const std::size_t half = n / 2;

    q.begin_recording();
    q.copy(a, in);                               // pinned to device
    q.fill(b, 3.0f);                             // fill
    q.copy(b.view(0, half), a.view(half, half));  // between views of two buffers
    q.copy(out, b);                              // device to pinned
    const auto recording = q.end_recording();
    CHECK(recording.commands() == 4);

    for (int round = 0; round < 3; ++round) {
        CAPTURE(round);
        const auto values = rnd.floats(n);
        std::copy(values.begin(), values.end(), in.begin());
        std::fill(out.begin(), out.end(), std::nanf(""));
        // The host's new values are read when the replay runs, not when it was recorded.
        q.replay(recording).wait();
        std::vector<float> expected(n, 3.0f);
        std::copy(values.begin() + static_cast<std::ptrdiff_t>(half),
                  values.begin() + static_cast<std::ptrdiff_t>(2 * half), expected.begin());
        CHECK(test::differences(std::vector<float>(out.begin(), out.end()), expected) == "");
    }
}

TEST_CASE("recording: a replay on another queue of the device runs after that queue's earlier "
          "work, and its event orders later work") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    auto recorder = device.create_queue();
    auto other = device.create_queue();
    const auto saxpy = device.kernel("saxpy");
    const std::size_t n = rnd.size(1, 4000);
    const auto x_host = rnd.floats(n), y_host = rnd.floats(n);
    auto x = device.alloc<float>(n);
    auto y = device.alloc<float>(n);
    auto expected_y = device.alloc<float>(n);
    recorder.copy(x, x_host, dualrt::Sync::blocking);

    recorder.begin_recording();
    saxpy_chain(recorder, saxpy, x, y, 50, 2.0f);
    const auto recording = recorder.end_recording();

    // The other queue uploads y and replays: the replay must see the upload.
    other.copy(y, y_host);
    const auto replayed = other.replay(recording);
    auto check_queue = device.create_queue();
    check_queue.wait(replayed);
    std::vector<float> got(n);
    check_queue.copy(got, y).wait();

    recorder.copy(expected_y, y_host);
    saxpy_chain(recorder, saxpy, x, expected_y, 50, 2.0f);
    CHECK(test::differences(got, read(recorder, expected_y)) == "");
}

TEST_CASE("recording: re-recording into a Recording replays the new scalars and buffers") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    auto q = device.create_queue();
    const auto saxpy = device.kernel("saxpy");
    const std::size_t n = rnd.size(1, 3000);
    const auto x_host = rnd.floats(n), y_host = rnd.floats(n);
    auto x = device.alloc<float>(n);
    auto y = device.alloc<float>(n);
    auto z = device.alloc<float>(n);
    q.copy(x, x_host);

    q.begin_recording();
    saxpy_chain(q, saxpy, x, y, 20, 1.0f);
    auto recording = q.end_recording();
    // Same commands, other scale and other output buffer of the same size.
    q.begin_recording();
    saxpy_chain(q, saxpy, x, z, 20, -3.0f);
    q.end_recording(recording);
    CHECK(recording.commands() == 20);
    if (device.info().backend == dualrt::Backend::cuda) CHECK(recording.updated_in_place());
    else CHECK(!recording.updated_in_place());

    q.copy(y, y_host);
    q.copy(z, y_host);
    q.replay(recording);
    auto expected = device.alloc<float>(n);
    q.copy(expected, y_host);
    saxpy_chain(q, saxpy, x, expected, 20, -3.0f);
    CHECK(test::differences(read(q, z), read(q, expected)) == "");
    CHECK(test::differences(read(q, y), y_host) == "");  // the old commands no longer run

    // A different list of commands is built anew.
    q.begin_recording();
    saxpy_chain(q, saxpy, x, z, 3, 1.0f);
    q.fill(y, 1.0f);
    q.end_recording(recording);
    CHECK(recording.commands() == 4);
    CHECK(!recording.updated_in_place());
}

TEST_CASE("recording: what needs the host or another queue is refused when enqueued, naming it, "
          "and the recording and the queue go on") {
    auto device = test::device();
    auto q = device.create_queue();
    const auto saxpy = device.kernel("saxpy");
    const std::size_t n = 4096;
    auto x = device.alloc<float>(n);
    auto y = device.alloc<float>(n);
    std::vector<float> pageable(n, 1.0f);
    auto pinned = device.alloc_host<float>(n);

    using dualrt::Errc;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "not recording", q.end_recording());
    q.begin_recording();
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "recording already", q.begin_recording());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "pageable", q.copy(x, pageable));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "pageable", q.copy(pageable, x));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "Sync::blocking",
                       q.copy(x, pinned, dualrt::Sync::blocking));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "recording", q.record());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "recording", q.mark());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "recording", q.finish());
    auto other = device.create_queue();
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "recording", q.wait(other.mark()));
    const auto recorded = q.launch(saxpy, {n}, {}, std::uint32_t(n), 2.0f, x, y);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "replay", recorded.wait());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "replay", other.wait(recorded));
    // A wrong argument is refused as it always is, and the recording goes on.
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "saxpy",
                       q.launch(saxpy, {n}, {}, 2.0f, x, y));
    auto recording = q.end_recording();
    CHECK(recording.commands() == 1);

    // Nothing recorded is an error, and the queue is no longer recording.
    q.begin_recording();
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "nothing was recorded", q.end_recording());
    CHECK(!q.recording());
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "empty", q.replay(dualrt::Recording()));

    // The queue works as before.
    q.copy(x, pageable);
    q.fill(y, 0.0f);
    q.replay(recording);
    const auto out = read(q, y);
    CHECK(out[0] == 2.0f);
    CHECK(out[n - 1] == 2.0f);
}

TEST_CASE("recording: several queues record into one recording, their waits kept, and a replay "
          "on one queue runs them all, bit for bit as unrecorded") {
    test::Random rnd;
    INFO("seed " << rnd.seed);
    auto device = test::device();
    auto main = device.create_queue(), side = device.create_queue();
    auto replayer = device.create_queue();
    const auto saxpy = device.kernel("saxpy");
    const std::size_t n = rnd.size(1, 4000);
    auto in = device.alloc_host<float>(n), out_y = device.alloc_host<float>(n);
    auto out_z = device.alloc_host<float>(n);
    auto x = device.alloc<float>(n), y = device.alloc<float>(n), z = device.alloc<float>(n);
    auto w = device.alloc<float>(n);

    const auto reset = [&](const std::vector<float>& values) {
        std::copy(values.begin(), values.end(), in.begin());
        main.fill(y, 1.0f);
        main.fill(z, 2.0f);
        main.fill(w, 0.0f);
        main.finish();
    };

    // Unrecorded, for the expected bits: main uploads x; side waits for it, runs a chain on y
    // from x and fills w; main runs its own chain on z from w, then downloads both.
    const auto values = rnd.floats(n);
    reset(values);
    {
        const dualrt::Event uploaded = main.copy(x, in);
        side.wait(uploaded);
        saxpy_chain(side, saxpy, x, y, 100, 0.25f);
        side.fill(w, 0.5f);
        side.finish();
        saxpy_chain(main, saxpy, w, z, 100, 0.75f);
        main.copy(out_y, y);
        main.copy(out_z, z);
        main.finish();
    }
    const std::vector<float> expected_y(out_y.begin(), out_y.end());
    const std::vector<float> expected_z(out_z.begin(), out_z.end());

    // Recorded: main's chain reads w, which side fills; the recording orders that by main
    // waiting on the fill before its chain.
    main.begin_recording();
    side.begin_recording(main);
    CHECK(side.recording());
    {
        const dualrt::Event uploaded = main.copy(x, in);
        side.wait(uploaded);
        saxpy_chain(side, saxpy, x, y, 100, 0.25f);
        const dualrt::Event filled = side.fill(w, 0.5f);
        main.wait(filled);
        saxpy_chain(main, saxpy, w, z, 100, 0.75f);
        const dualrt::Event side_end = side.fill(x.view(0, 0), 0.0f);  // records nothing
        main.wait(side_end);
        main.copy(out_y, y);
        main.copy(out_z, z);
    }
    CHECK_DUALRT_ERROR(dualrt::Errc::invalid_argument, "began", side.end_recording());
    const auto recording = main.end_recording();
    CHECK(!side.recording());
    CHECK(recording.queues() == 2);
    CHECK(recording.commands() == 204);

    for (int round = 0; round < 2; ++round) {
        CAPTURE(round);
        reset(values);
        std::fill(out_y.begin(), out_y.end(), std::nanf(""));
        std::fill(out_z.begin(), out_z.end(), std::nanf(""));
        replayer.replay(recording).wait();
        CHECK(test::differences(std::vector<float>(out_y.begin(), out_y.end()), expected_y) ==
              "");
        CHECK(test::differences(std::vector<float>(out_z.begin(), out_z.end()), expected_z) ==
              "");
    }
}

TEST_CASE("recording: joining a recording is checked") {
    auto device = test::device();
    auto a = device.create_queue(), b = device.create_queue(), c = device.create_queue();
    auto buffer = device.alloc<float>(16);
    using dualrt::Errc;
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "not the one that began", b.begin_recording(a));
    a.begin_recording();
    b.begin_recording(a);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "not the one that began", c.begin_recording(b));
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "recording already", b.begin_recording(a));
    c.begin_recording();  // a recording of its own
    const auto of_c = c.fill(buffer, 1.0f);
    CHECK_DUALRT_ERROR(Errc::invalid_argument, "another recording", b.wait(of_c));
    b.fill(buffer, 2.0f);
    const auto ab = a.end_recording();
    CHECK(ab.queues() == 2);
    CHECK(ab.commands() == 1);
    const auto own = c.end_recording();
    CHECK(own.queues() == 1);
    c.replay(ab);
    c.replay(own).wait();
}
