#include "sweep.hpp"
#include "splitmix.hpp"

#include <cstring>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dualrt::samples::coalescing {

const char* Sweep::kernel() const {
    return pattern == Pattern::offset ? "offset_copy_f32" : "stride_copy_f32";
}

std::string Sweep::family() const {
    return pattern == Pattern::offset ? "offset copy f32" : "stride copy f32";
}

std::string Sweep::rung(std::uint32_t v) const {
    return (pattern == Pattern::offset ? "offset " : "stride ") + std::to_string(v);
}

std::size_t Sweep::span(std::size_t n, std::uint32_t v) const {
    return pattern == Pattern::offset ? n + v : n * v;
}

std::size_t Sweep::index(std::size_t i, std::uint32_t v) const {
    return pattern == Pattern::offset ? i + v : i * v;
}

namespace {

// 1-D copies in work-groups of 256: a common choice that fills an SM on every NVIDIA GPU.
constexpr std::size_t group_size = 256;

// splitmix64: fast enough for the 2^29 elements the stride sweep's source has by default.
std::vector<float> random_floats(std::size_t count, std::uint64_t state) {
    std::vector<float> out(count);
    for (auto& value : out) {
        const std::uint64_t z = splitmix64(state);
        // Sign and mantissa random, exponent of [1, 2): normal values, never the NaN poison.
        const auto bits = (static_cast<std::uint32_t>(z) & 0x807FFFFFu) | 0x3F800000u;
        std::memcpy(&value, &bits, sizeof value);
    }
    return out;
}

std::uint32_t bits_of(float value) {
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

// Compares what a run with value v left in result[0, checked) with what it should have: src's
// element at each index it copies, the NaN poison everywhere else.
class Check {
public:
    Check(const float* result, const std::vector<float>& src) : result_(result), src_(src) {}

    // result[begin, end) must still hold the poison. A plain loop over bits, which the compiler
    // can vectorise: the stride sweep checks about 9 * 10^9 elements per device by default.
    void untouched(std::size_t begin, std::size_t end) {
        std::size_t bad = 0;
        for (std::size_t k = begin; k < end; ++k) bad += bits_of(result_[k]) != poison_;
        if (bad == 0) return;
        if (count_ == 0)
            for (std::size_t k = begin; k < end; ++k)
                if (bits_of(result_[k]) != poison_) {
                    first_ = k;
                    first_copied_ = false;
                    break;
                }
        count_ += bad;
    }
    // result[k] must hold src[k].
    void copied(std::size_t k) {
        if (bits_of(result_[k]) == bits_of(src_[k])) return;
        if (count_++ == 0) {
            first_ = k;
            first_copied_ = true;
        }
    }
    // "" when nothing differed; otherwise how many elements and the first (checked in order).
    std::string report(std::size_t checked) const {
        if (count_ == 0) return {};
        return std::to_string(count_) + " of " + std::to_string(checked) +
               " elements wrong, the first at " + std::to_string(first_) + ": got " +
               std::to_string(result_[first_]) + ", expected " +
               (first_copied_ ? std::to_string(src_[first_]) : "the poison (untouched)");
    }

private:
    const float* result_;
    const std::vector<float>& src_;
    const std::uint32_t poison_ = bits_of(std::numeric_limits<float>::quiet_NaN());
    std::size_t count_ = 0, first_ = 0;
    bool first_copied_ = false;
};

std::string mismatch(const Sweep& sweep, std::size_t n, std::uint32_t v, const float* result,
                     std::size_t checked, const std::vector<float>& src) {
    Check check(result, src);
    std::size_t k = 0;  // everything before k is checked
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t at = sweep.index(i, v);
        check.untouched(k, at);
        check.copied(at);
        k = at + 1;
    }
    check.untouched(k, checked);
    return check.report(checked);
}

}  // namespace

LadderReport run_sweep(const Sweep& sweep, std::size_t n, const std::vector<Device>& devices,
                       const Args& args, Progress& progress) {
    LadderReport report(sweep.family(), "GB/s");
    report.add_reference(sweep.rung(sweep.first), sweep.rung(sweep.first));
    // One source and one destination for the whole sweep, sized for its largest span; each run
    // poisons, and checks, only what it may touch.
    const std::size_t capacity = sweep.span(n, sweep.last) + tail;
    const auto src = random_floats(capacity, 0xC0A1E5CEull + static_cast<unsigned>(sweep.pattern));
    std::vector<float> result(capacity);  // reused: the stride sweep's is gigabytes
    for (const auto& device : devices) {
        Queue queue = device.create_queue();
        auto d_src = device.alloc<float>(capacity);
        auto d_dst = device.alloc<float>(capacity);
        queue.copy(d_src, src, Sync::blocking);
        const Kernel kernel = device.kernel(sweep.kernel());
        for (std::uint32_t v = sweep.first; v <= sweep.last; ++v) {
            progress.step(sweep.rung(v) + ", " + to_string(device.backend()));
            const std::size_t checked = sweep.span(n, v) + tail;
            const auto dst = d_dst.view(0, checked);
            queue.fill(dst, std::numeric_limits<float>::quiet_NaN());
            RungResult row;
            row.rung = sweep.rung(v);
            row.backend = device.backend();
            row.device = device.info().name;
            row.work = 2.0 * static_cast<double>(n) * sizeof(float);  // effective: read + write
            row.timing = time_on_device(queue, warmup_runs(args), repetitions(args), [&] {
                queue.launch(kernel, n, group_size, static_cast<std::uint32_t>(n), v, d_src, d_dst);
            });
            queue.copy(result.data(), checked, dst, Sync::blocking);
            row.note = mismatch(sweep, n, v, result.data(), checked, src);
            row.verified = row.note.empty();
            report.add(std::move(row));
        }
    }
    progress.clear();
    return report;
}

}  // namespace dualrt::samples::coalescing
