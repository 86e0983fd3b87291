#include "cross_device.hpp"

#include "options.hpp"
#include "csv.hpp"
#include "native_common.hpp"
#include "table.hpp"

#include <chrono>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace dualrt::samples::bandwidth {
namespace {

using dualrt::samples::fixed;
using dualrt::samples::format_bytes;

using Clock = std::chrono::steady_clock;

// Median ms of `copy` (blocking) over `repetitions` runs after one warm-up.
template <typename Copy>
double median_ms(int repetitions, Copy&& copy) {
    copy();
    std::vector<double> times;
    for (int r = 0; r < repetitions; ++r) {
        const auto begin = Clock::now();
        copy();
        times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
    }
    return dualrt::bench::detail::median(std::move(times));
}

double gbps(std::size_t bytes, double ms) { return ms > 0.0 ? bytes / (ms * 1e6) : 0.0; }

std::string label(const Device& d) {
    return std::string(to_string(d.backend())) + " " + std::to_string(d.info().index) + " '" +
           d.name() + "'";
}

// Sends random words from `from_buffer` to `to_buffer` once and checks they all arrived.
void check_once(Queue& queue, const Buffer<std::uint32_t>& to_buffer,
                const Buffer<std::uint32_t>& from_buffer, const Device& from, const Device& to) {
    std::vector<std::uint32_t> sent(from_buffer.size());
    std::mt19937 engine(std::random_device{}());
    for (auto& word : sent) word = static_cast<std::uint32_t>(engine());
    from.create_queue().copy(from_buffer, sent, Sync::blocking);
    queue.copy(to_buffer, from_buffer, Sync::blocking);
    std::vector<std::uint32_t> back(sent.size(), 0);
    to.create_queue().copy(back, to_buffer, Sync::blocking);
    if (std::memcmp(back.data(), sent.data(), sent.size() * sizeof sent[0]) != 0)
        throw std::runtime_error("the copy from " + label(from) + " to " + label(to) +
                                 " delivered wrong data");
}

// Device ms of saxpy over `x` and `y` (halves of one allocation), median of `repetitions` after a
// warm-up, timed by recorded events.
double saxpy_ms(const Device& device, const Buffer<float>& x, const Buffer<float>& y,
                int repetitions) {
    auto queue = device.create_queue();
    auto saxpy = device.kernel("saxpy");
    const auto n = static_cast<std::uint32_t>(x.size());
    queue.launch(saxpy, {x.size()}, {}, n, 1.0001f, x, y).wait();
    std::vector<double> times;
    for (int r = 0; r < repetitions; ++r) {
        const Event start = queue.record();
        queue.launch(saxpy, {x.size()}, {}, n, 1.0001f, x, y);
        const Event end = queue.record();
        times.push_back(Event::elapsed_ms(start, end));
    }
    return dualrt::bench::detail::median(std::move(times));
}

}  // namespace

void print_shared_memory(const Device& device, std::size_t bytes, int repetitions,
                         std::ostream& out) {
    const std::size_t half = bytes / sizeof(float) / 2 / 1024 * 1024;
    Table table({"device", "saxpy on", "ms", "GB/s", "shared / own", "target"});
    bool any = false;
    std::vector<std::string> refused;  // pairs that share, but not this many bytes
    for (const Device& other : devices()) {
        if (other == device || !sharing_support(device, other).possible) continue;
        any = true;
        SharedBuffers<float> shared;
        try {
            shared = alloc_shared<float>(device, other, 2 * half);
        } catch (const Error& e) {
            if (e.errc() != Errc::unavailable) throw;
            refused.push_back(e.what());
            continue;
        }
        // Contents: a fill on one side, which the other side's kernel then reads in place.
        device.create_queue().fill(shared.first, 0.5f, Sync::blocking);
        for (const bool mine : {true, false}) {
            const Device& on = mine ? device : other;
            const Buffer<float>& memory = mine ? shared.first : shared.second;
            auto own = on.alloc<float>(2 * half);
            on.create_queue().fill(own, 0.5f, Sync::blocking);
            const double shared_ms =
                saxpy_ms(on, memory.view(0, half), memory.view(half, half), repetitions);
            const double own_ms = saxpy_ms(on, own.view(0, half), own.view(half, half),
                                           repetitions);
            const double traffic = 3.0 * static_cast<double>(half * sizeof(float));
            const double ratio = own_ms > 0.0 ? own_ms / shared_ms : 0.0;
            table.add({label(on), "shared memory", fixed(shared_ms, 4),
                       fixed(traffic / (shared_ms * 1e6), 1), fixed(ratio, 3),
                       ratio >= 0.98 ? ">= 0.98 met" : ">= 0.98 NOT met"});
            table.add({label(on), "its own buffer", fixed(own_ms, 4),
                       fixed(traffic / (own_ms * 1e6), 1), "-", "-"});
        }
    }
    if (!any) {
        out << "\nShared memory: no other device shares memory with " << label(device) << "\n";
        return;
    }
    for (const std::string& why : refused) out << "\nShared memory refused: " << why << "\n";
    if (table.empty()) return;
    out << "\nMemory shared in place (alloc_shared), saxpy over " << format_bytes(4 * half)
        << " x and y (device time, median of " << repetitions << "); no byte is copied between "
        << "the devices\n";
    table.print(out);
}

void print_cross_device(const Device& device, bench::NativeBaseline& native, std::size_t bytes,
                        int repetitions, std::ostream& out) {
    const std::size_t words = bytes / sizeof(std::uint32_t);
    auto queue = device.create_queue();
    auto here = device.alloc<std::uint32_t>(words);
    auto pinned = device.alloc_host<std::uint32_t>(words);
    const double h2d = gbps(bytes, median_ms(repetitions, [&] {
                               queue.copy(here, pinned, Sync::blocking);
                           }));
    const double d2h = gbps(bytes, median_ms(repetitions, [&] {
                               queue.copy(pinned, here, Sync::blocking);
                           }));
    const double slower = std::min(h2d, d2h);
    // A staged copy between devices downloads and uploads at once over the same host link: the
    // rate of each direction while the other runs is what it can reach (the link may not carry
    // both at full speed).
    auto other_way = device.alloc<std::uint32_t>(words);
    auto other_pinned = device.alloc_host<std::uint32_t>(words);
    auto second_queue = device.create_queue();
    const double both = gbps(bytes, median_ms(repetitions, [&] {
                                 queue.copy(here, pinned);
                                 second_queue.copy(other_pinned, other_way);
                                 queue.finish();
                                 second_queue.finish();
                             }));
    Table table({"from", "to", "path", "GB/s", "/ slower pinned", "native GB/s", "/ native",
                 "target"});
    for (const Device& other : devices()) {
        if (other == device) continue;
        auto there = other.alloc<std::uint32_t>(words);
        const bool peer = device.peer_access(other);
        for (const bool outwards : {true, false}) {
            const Device& from = outwards ? device : other;
            const Device& to = outwards ? other : device;
            const auto& source = outwards ? here : there;
            const auto& target = outwards ? there : here;
            check_once(queue, target, source, from, to);
            const double rate = gbps(bytes, median_ms(repetitions, [&] {
                                         queue.copy(target, source, Sync::blocking);
                                     }));
            const double ratio = slower > 0.0 ? rate / slower : 0.0;
            const bool gpu_pair = from.info().type == DeviceType::gpu &&
                                  to.info().type == DeviceType::gpu;
            std::string native_rate = "-", over_native = "-", verdict = "-";
            if (peer) {
                // The peer copy's own yardstick: the driver's peer copy written by hand.
                const double hand = gbps(bytes, native.peer_copy_ms(other, outwards, bytes,
                                                                    repetitions));
                const double share = hand > 0.0 ? rate / hand : 0.0;
                native_rate = fixed(hand, 2);
                over_native = fixed(share, 3);
                verdict = share >= 0.95 ? ">= 0.95 native met" : ">= 0.95 native NOT met";
            } else if (gpu_pair) {
                verdict = ratio >= 0.8 ? ">= 0.80 pinned met" : ">= 0.80 pinned NOT met";
            }
            table.add({label(from), label(to), peer ? "peer" : "staged", fixed(rate, 2),
                       fixed(ratio, 3), native_rate, over_native, verdict});
        }
    }
    out << "\nBetween devices, " << format_bytes(bytes) << " (host clock around a blocking copy on "
        << "a queue of " << label(device) << "; pinned H2D " << fixed(h2d, 2) << " GB/s, D2H "
        << fixed(d2h, 2) << " GB/s the same way; both at once, on two queues: "
        << fixed(both, 2) << " GB/s each)\n";
    table.print(out);
    out.flush();  // before the shared-memory table, whose driver calls come next
}

}  // namespace dualrt::samples::bandwidth
