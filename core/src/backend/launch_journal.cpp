// The launch journal behind launch_journal.hpp: per device, the last launches not known to have
// completed, each with its kernel's name, queue and sequence number.
#include "backend/launch_journal.hpp"

#include <array>
#include <cstdint>
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

// The last kept_per_device launches in flight, oldest first, in a ring whose entries are
// overwritten in place: a launch, which lands here every time, then costs no allocation (an
// entry's name keeps its capacity), where a deque of entries allocated a node every few
// launches and a name longer than the string's inline storage each time.
class InFlight {
public:
    std::size_t size() const { return size_; }
    const Launch& operator[](std::size_t k) const { return ring_[(first_ + k) % kept_per_device]; }

    // Adds a launch; when full, the oldest is overwritten and false returned.
    bool push(std::uint64_t number, const void* queue, const std::string& kernel) {
        const bool room = size_ < kept_per_device;
        Launch& slot = ring_[(first_ + size_) % kept_per_device];
        slot.kernel.assign(kernel);  // first: should it throw, the slot is unchanged
        slot.number = number;
        slot.queue = queue;
        if (room) ++size_;
        else first_ = (first_ + 1) % kept_per_device;
        return room;
    }

    // Drops the launches of `queue`, keeping the others in order.
    void remove_queue(const void* queue) {
        std::size_t kept = 0;
        for (std::size_t k = 0; k < size_; ++k) {
            Launch& from = ring_[(first_ + k) % kept_per_device];
            if (from.queue == queue) continue;
            if (kept != k) std::swap(ring_[(first_ + kept) % kept_per_device], from);
            ++kept;
        }
        size_ = kept;
    }

private:
    std::array<Launch, kept_per_device> ring_{};
    std::size_t first_ = 0;
    std::size_t size_ = 0;
};

}  // namespace

// One device's journal. Its mutex is taken by every launch on the device, briefly.
class LaunchJournal {
public:
    std::mutex mutex;
    std::uint64_t launches = 0;
    InFlight in_flight;
    std::uint64_t dropped = 0;  // in flight, but pushed out of `in_flight`
};

void LaunchJournalDeleter::operator()(LaunchJournal* journal) const noexcept { delete journal; }

std::unique_ptr<LaunchJournal, LaunchJournalDeleter> make_launch_journal() {
    return std::unique_ptr<LaunchJournal, LaunchJournalDeleter>(new LaunchJournal);
}

void journal_launch(const backend::DeviceImpl& device, const void* queue,
                    const std::string& kernel) noexcept {
    LaunchJournal& journal = device.launch_journal();
    try {
        std::lock_guard<std::mutex> lock(journal.mutex);
        if (!journal.in_flight.push(++journal.launches, queue, kernel)) ++journal.dropped;
    } catch (...) {
        // Out of memory for a journal entry's name: the fault message will name fewer kernels.
    }
}

void journal_queue_done(const backend::DeviceImpl& device, const void* queue) noexcept {
    LaunchJournal& journal = device.launch_journal();
    std::lock_guard<std::mutex> lock(journal.mutex);
    journal.in_flight.remove_queue(queue);
}

void rethrow_with_suspects(const backend::DeviceImpl& device, const Error& error) {
    std::string suspects;
    std::uint64_t dropped = 0;
    {
        LaunchJournal& journal = device.launch_journal();
        std::lock_guard<std::mutex> lock(journal.mutex);
        const InFlight& in_flight = journal.in_flight;
        for (std::size_t k = 0; k < in_flight.size(); ++k) {
            suspects += (suspects.empty() ? "'" : ", '") + in_flight[k].kernel + "' (launch #" +
                        std::to_string(in_flight[k].number) + ")";
        }
        dropped = journal.dropped;
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
