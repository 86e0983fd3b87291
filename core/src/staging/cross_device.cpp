#include "staging/cross_device.hpp"

#include "backend/backend_access.hpp"
#include "staging/copy_profile.hpp"
#include "staging/pinned_ranges.hpp"
#include "staging/staging_slots.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>

namespace dualrt::detail {
namespace {

// The core's own queue on a device: the far side of staged copies issued on a queue of the other
// device. Made on first use, kept for the process (like the staging pools).
backend::QueueImpl& side_queue(const std::shared_ptr<backend::DeviceImpl>& device) {
    static std::mutex mutex;
    static std::map<const backend::DeviceImpl*, std::shared_ptr<backend::QueueImpl>> queues;
    std::lock_guard<std::mutex> lock(mutex);
    auto& queue = queues[device.get()];
    if (!queue) queue = device->create_queue(false);  // its events are waited on, never timed
    return *queue;
}

// Registers the slots' memory with `other` where it is not pinned for it already, once per slot
// (the registration lives as long as the pooled buffer). A driver that refuses leaves that side
// of the copy at its pageable rate, which is slower but correct.
void pin_for(LentSlots& lent, backend::DeviceImpl& other) {
    for (std::size_t i = 0; i < lent.size(); ++i) {
        StagingSlot& slot = lent.slot(i);
        if (pinned_alike(slot.buffer->device(), other)) continue;
        const bool done = std::any_of(
            slot.also_pinned_for.begin(), slot.also_pinned_for.end(),
            [&](const auto& registration) { return &registration->device() == &other; });
        if (done) continue;
        try {
            slot.also_pinned_for.push_back(other.register_host_memory(slot.data, slot.bytes));
        } catch (const Error& e) {
            log().debug("copies between devices: registering a staging buffer with {} failed "
                        "({}); that side copies at the pageable rate",
                        device_label(other.info()), e.what());
        }
    }
}

struct Piece {
    std::size_t slot;
    std::size_t offset;
    std::size_t length;
    backend::EventPtr landed;  // the download into the slot
};

// Downloads on `from`, uploads on `to`, through the pool's buffers: every buffer starts a
// download; each landed piece is uploaded at once, and a buffer takes the next piece once its
// upload has read it. The host never waits for an upload while a download is in flight (it
// checks them in passing), so both directions stay busy: waiting for each upload before the
// next download left the upload engine idle for a host wake-up per piece. Returns the last
// upload's event, or nullptr when the pool has nothing to lend.
backend::EventPtr staged_between(StagingPool& pool, backend::QueueImpl& from,
                                 backend::QueueImpl& to, backend::DeviceImpl& to_device,
                                 const BufferView& dst, const BufferView& src) {
    const std::size_t bytes = src.bytes();
    CopyProfile profile;  // from here: lending the buffers may pin new ones
    LentSlots lent(pool, profile.lend([&] { return pool.acquire(staging_slots_for(bytes)); }));
    if (lent.size() == 0) return nullptr;
    pin_for(lent, to_device);  // the pool is the source device's: its side is pinned already
    const std::size_t piece = staging_piece(bytes, lent);
    std::deque<Piece> downloading;
    std::deque<std::size_t> uploading;  // slots, oldest upload first
    std::size_t next = 0, pieces = 0;
    const auto download_into = [&](std::size_t i) {
        const std::size_t length = staging_piece_at(next, bytes, piece);
        backend::EventPtr landed;
        profile.enqueue([&] {
            landed = from.copy_to_host(lent.slot(i).data, *backend_of(src),
                                       src.offset_bytes() + next, length, Sync::async);
            from.submit();  // where the backend holds commands back (OpenCL), they start now
        });
        downloading.push_back(Piece{i, next, length, std::move(landed)});
        next += length;
        ++pieces;
    };
    for (std::size_t i = 0; i < lent.size() && next < bytes; ++i) download_into(i);
    backend::EventPtr last;
    while (!downloading.empty()) {
        Piece landed = std::move(downloading.front());
        downloading.pop_front();
        profile.dma_wait([&] { landed.landed->wait(); });
        profile.enqueue([&] {
            last = to.copy_to_device(*backend_of(dst), dst.offset_bytes() + landed.offset,
                                     lent.slot(landed.slot).data, landed.length, Sync::async);
            to.submit();
        });
        lent.last_use(landed.slot) = last;
        uploading.push_back(landed.slot);
        // Buffers whose upload is done take the next pieces; with nothing left downloading, the
        // oldest upload is waited for.
        while (next < bytes && !uploading.empty()) {
            auto& read = lent.last_use(uploading.front());
            if (!downloading.empty() && !read->is_complete()) break;
            profile.dma_wait([&] { read->wait(); });
            const std::size_t slot = uploading.front();
            uploading.pop_front();
            download_into(slot);
        }
    }
    pool.count_staged(bytes);
    if (profile.on())
        profile.report("copy from " + device_label(from.device().info()) + " to " +
                           device_label(to_device.info()),
                       bytes, pieces, piece, lent.size(), 0);
    return last;
}

}  // namespace

std::shared_ptr<backend::DeviceImpl> shared_device(const backend::DeviceImpl& device) {
    // Every DeviceImpl is made by make_shared (listed or wrapped), so this cannot throw.
    return std::const_pointer_cast<backend::DeviceImpl>(device.shared_from_this());
}

void wait_across(backend::DeviceImpl& device, backend::QueueImpl& queue,
                 backend::EventImpl& event) {
    if (device.can_wait_on(event.device())) {
        queue.wait_for(event);
        return;
    }
    // OpenCL contexts share no events, and CUDA cannot wait for OpenCL's: the host waits, so
    // that anything enqueued on `queue` from here on comes after the event.
    event.wait();
}

backend::EventPtr copy_across(const std::shared_ptr<backend::DeviceImpl>& queue_device,
                              backend::QueueImpl& queue, const BufferView& dst,
                              const BufferView& src, Sync sync) {
    const bool pull = &backend_of(dst)->device() == queue_device.get();  // the queue is dst's
    const auto other = shared_device(pull ? backend_of(src)->device() : backend_of(dst)->device());
    if (queue_device->can_copy_peer(*other)) {
        auto event = queue.copy_peer(*backend_of(dst), dst.offset_bytes(), *backend_of(src),
                                     src.offset_bytes(), src.bytes());
        if (sync == Sync::blocking) event->wait();
        return event;
    }
    backend::QueueImpl& side = side_queue(other);
    // The far side starts after what was enqueued on `queue` before the copy.
    const auto before = queue.mark();
    wait_across(*other, side, *before);
    const auto& src_device = pull ? other : queue_device;
    const auto& dst_device = pull ? queue_device : other;
    // The source's pool: its buffers are pinned for the download; pin_for registers them with
    // the destination where that one does not see them as pinned.
    auto last = staged_between(StagingPool::of(src_device), pull ? side : queue,
                               pull ? queue : side, *dst_device, dst, src);
    if (!last)
        raise_argument("Queue::copy (between devices)",
                       "no pinned staging buffer could be had to copy " +
                           format_bytes(src.bytes()) + " from " +
                           device_label(src_device->info()) + " to " +
                           device_label(dst_device->info()) +
                           " (staging is off, DUALRT_STAGING_LIMIT=0, or the host refused to pin "
                           "memory); copy through a HostBuffer instead",
                       Errc::unavailable);
    // Work enqueued on `queue` after the copy comes after its last upload (on the far side when
    // the queue is the source's).
    if (!pull) wait_across(*queue_device, queue, *last);
    if (sync == Sync::blocking) last->wait();
    return last;
}

}  // namespace dualrt::detail
