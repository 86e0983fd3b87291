// The launch journal that names a kernel fault's suspects: the last 64 launches in flight per
// device, oldest first, older ones counted; a finished queue's launches forgotten; other devices
// unaffected. Driven directly, on fake devices, each of which owns its journal.
#include "backend/launch_journal.hpp"
#include "fake_backend.hpp"

#include <doctest/doctest.h>

#include <string>

namespace {

// The message a device_lost error on `device` gets from the journal.
std::string suspects(const dualrt::backend::DeviceImpl& device) {
    dualrt::ErrorInfo info;
    info.errc = dualrt::Errc::device_lost;
    info.backend = "fake";
    info.call = "fake_wait";
    info.detail = "the kernel faulted";
    try {
        dualrt::detail::rethrow_with_suspects(device, dualrt::Error(info));
    } catch (const dualrt::Error& error) {
        return error.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("fault journal: the last 64 launches in order, older ones counted, a finished queue's "
          "forgotten") {
    const auto device = std::make_shared<test::fake::Device>("journal device");
    const auto other = std::make_shared<test::fake::Device>("journal other device");
    int queue_a = 0, queue_b = 0;  // identities only
    CHECK(contains(suspects(*device), "no kernel launched through dualrt was in flight"));

    // 70 launches alternating between two queues, with names past std::string's inline storage.
    for (int k = 1; k <= 70; ++k)
        dualrt::detail::journal_launch(*device, k % 2 ? &queue_a : &queue_b,
                                       "a_kernel_with_a_long_name_" + std::to_string(k));
    dualrt::detail::journal_launch(*other, &queue_a, "elsewhere");
    std::string message = suspects(*device);
    INFO("message: " << message);
    CHECK_FALSE(contains(message, "_6' (launch #6)"));  // pushed out
    CHECK(contains(message, "'a_kernel_with_a_long_name_7' (launch #7), "
                            "'a_kernel_with_a_long_name_8' (launch #8)"));
    CHECK(contains(message, "'a_kernel_with_a_long_name_70' (launch #70) and 6 earlier ones"));
    CHECK_FALSE(contains(message, "elsewhere"));

    // queue_b finished: only queue_a's odd launches stay, still in order.
    dualrt::detail::journal_queue_done(*device, &queue_b);
    message = suspects(*device);
    CHECK_FALSE(contains(message, "_8' (launch #8)"));
    CHECK(contains(message, "'a_kernel_with_a_long_name_67' (launch #67), "
                            "'a_kernel_with_a_long_name_69' (launch #69) and"));
    // Room again: the next launches land after the kept ones.
    for (int k = 71; k <= 74; ++k)
        dualrt::detail::journal_launch(*device, &queue_b, "next_" + std::to_string(k));
    message = suspects(*device);
    CHECK(contains(message, "(launch #69), 'next_71' (launch #71), 'next_72' (launch #72)"));
    CHECK(contains(message, "'next_74' (launch #74) and"));

    dualrt::detail::journal_queue_done(*device, &queue_a);
    dualrt::detail::journal_queue_done(*device, &queue_b);
    CHECK(contains(suspects(*device), "no kernel launched through dualrt was in flight"));
    CHECK(contains(suspects(*other), "'elsewhere' (launch #1)"));
    dualrt::detail::journal_queue_done(*other, &queue_a);
}
