// Reading a driver's reference counts in the interop tests, and making dualrt let go of what it
// keeps for a while (the staging pool's events) before they are read.
#pragma once

#include "native_api.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

namespace test::native {

// Whether the driver's count of references to `handle` comes to `expected` within two seconds.
// Commands and events hold references to their queue and buffers, which a driver drops a little
// after the commands complete (PoCL on a thread of its own), so the count is read until it
// settles. Always true where the driver keeps no counts (CUDA).
inline bool settles_to(Api& api, Kind kind, NativeHandle handle,
                       std::optional<unsigned> expected) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (;;) {
        const auto count = api.references(kind, handle);
        if (count == expected) return true;
        if (std::chrono::steady_clock::now() > deadline) {
            MESSAGE("reference count " << (count ? std::to_string(*count) : "none")
                                       << ", expected "
                                       << (expected ? std::to_string(*expected) : "none"));
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// Makes the device's staging pool let go of the events it keeps (the last of each staged copy,
// until it lends that buffer again), which hold their queue: it frees its idle buffers and is
// set back to its limit. False when DUALRT_STAGING_LIMIT fixes the limit, which is then kept.
inline bool drop_staging_events(const dualrt::Device& device) {
    if (std::getenv(dualrt::env_staging_limit) != nullptr) return false;
    const std::size_t limit = device.staging_stats().limit_bytes;
    device.set_staging_limit(0);
    device.set_staging_limit(limit);
    return true;
}

}  // namespace test::native
