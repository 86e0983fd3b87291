// The launch journal behind fault_journal.hpp: per device, the last launches not known to have
// completed, each with its kernel's name, queue and sequence number.
#include "fault_journal.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>

namespace dualrt::detail {
namespace {

// Enough to name every kernel of a realistic burst between synchronisations; older entries are
// dropped and counted, so the message says when the list is not complete.
constexpr std::size_t kept_per_device = 64;

struct Launch {
    std::uint64_t number;  // per device, from 1
    const void* queue;
    std::string kernel;
};

struct DeviceJournal {
    std::uint64_t launches = 0;
    std::deque<Launch> in_flight;
    std::uint64_t dropped = 0;  // in flight, but pushed out of `in_flight`
};

struct Journal {
    std::mutex mutex;
    std::map<const backend::DeviceImpl*, DeviceJournal> devices;
};

Journal& journal() {
    static Journal instance;
    return instance;
}

}  // namespace

void journal_launch(const backend::DeviceImpl& device, const void* queue,
                    const std::string& kernel) noexcept {
    try {
        Journal& j = journal();
        std::lock_guard<std::mutex> lock(j.mutex);
        DeviceJournal& d = j.devices[&device];
        d.in_flight.push_back({++d.launches, queue, kernel});
        if (d.in_flight.size() > kept_per_device) {
            d.in_flight.pop_front();
            ++d.dropped;
        }
    } catch (...) {
        // Out of memory for a journal entry: the fault message will name fewer kernels.
    }
}

void journal_queue_done(const backend::DeviceImpl& device, const void* queue) noexcept {
    Journal& j = journal();
    std::lock_guard<std::mutex> lock(j.mutex);
    auto found = j.devices.find(&device);
    if (found == j.devices.end()) return;
    auto& in_flight = found->second.in_flight;
    for (auto it = in_flight.begin(); it != in_flight.end();) {
        it = it->queue == queue ? in_flight.erase(it) : std::next(it);
    }
}

void rethrow_with_suspects(const backend::DeviceImpl& device, const Error& error) {
    std::string suspects;
    std::uint64_t dropped = 0;
    {
        Journal& j = journal();
        std::lock_guard<std::mutex> lock(j.mutex);
        if (auto found = j.devices.find(&device); found != j.devices.end()) {
            for (const Launch& launch : found->second.in_flight) {
                suspects += (suspects.empty() ? "'" : ", '") + launch.kernel + "' (launch #" +
                            std::to_string(launch.number) + ")";
            }
            dropped = found->second.dropped;
        }
    }
    ErrorInfo info = error.info();
    if (suspects.empty()) {
        info.detail += "; no kernel launched through dualrt was in flight on this device (the "
                       "fault comes from work submitted through a native handle, or before)";
    } else {
        info.detail += "; the faulting kernel is one of those launched on this device and not "
                       "yet known to have completed: " + suspects;
        if (dropped > 0) info.detail += " and " + std::to_string(dropped) + " earlier ones";
        info.detail += " (DUALRT_SYNC=1 makes every launch wait, so that the fault is reported "
                       "at the launch that caused it)";
    }
    throw Error(std::move(info));
}

}  // namespace dualrt::detail
