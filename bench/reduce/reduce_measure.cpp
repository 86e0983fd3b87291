#include "reduce_measure.hpp"

#include "reduce_rungs.hpp"
#include "splitmix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

namespace dualrt::samples::reduce {

namespace {

std::string number(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

// Whether `got` is the sum of `input` as a reduction whose elements each pass through at most
// `depth` additions may compute it; otherwise `note` says how far off it is.
bool check(float got, const Input<float>& input, std::size_t depth, std::string& note) {
    const double tolerance = float_tolerance(depth, input.sum_abs);
    const double error = std::fabs(static_cast<double>(got) - input.sum);
    if (error <= tolerance) return true;  // false for NaN (the poison: never written)
    note = "got " + number(got) + ", expected " + number(input.sum) + " +- " + number(tolerance);
    return false;
}

bool check(std::int32_t got, const Input<std::int32_t>& input, std::size_t, std::string& note) {
    if (static_cast<double>(got) == input.sum) return true;
    note = "got " + std::to_string(got) + ", expected " + number(input.sum);
    return false;
}

template <typename T>
T poison() {
    if constexpr (std::is_floating_point_v<T>)
        return std::numeric_limits<T>::quiet_NaN();
    else
        return static_cast<T>(0xDEADBEEFu);
}

}  // namespace

Input<float> float_input(std::size_t n, std::uint64_t seed) {
    Input<float> input;
    input.host.resize(n);
    std::uint64_t state = seed;
    for (auto& v : input.host) {
        v = static_cast<float>(splitmix64(state) >> 40) * (1.0f / 16777216.0f);  // 24 bits
        input.sum += v;
    }
    input.sum_abs = input.sum;  // all non-negative
    return input;
}

Input<std::int32_t> int_input(std::size_t n, std::uint64_t seed) {
    Input<std::int32_t> input;
    input.host.resize(n);
    // Values in [-m, m] with n * m <= 2^31 - 1: no partial sum, in any order, overflows.
    const std::uint64_t limit =
        std::numeric_limits<std::int32_t>::max() / std::max<std::size_t>(n, 1);
    const std::uint64_t m = std::min<std::uint64_t>(limit, 1000);
    std::uint64_t state = seed;
    std::int64_t sum = 0, sum_abs = 0;
    for (auto& v : input.host) {
        v = static_cast<std::int32_t>(splitmix64(state) % (2 * m + 1)) -
            static_cast<std::int32_t>(m);
        sum += v;
        sum_abs += v < 0 ? -v : v;
    }
    input.sum = static_cast<double>(sum);
    input.sum_abs = static_cast<double>(sum_abs);
    return input;
}

template <typename T>
std::vector<RungResult> measure_rungs(const Device& device, const Input<T>& input,
                                      const MeasureOptions& options) {
    const std::size_t n = input.host.size();
    auto queue = device.create_queue();
    auto buffer = device.alloc<T>(n);
    queue.copy(buffer, input.host, Sync::blocking);

    std::vector<RungResult> rows;
    for (const auto& rung : rungs()) {
        if (options.step) options.step(kernel_name<T>(rung));
        const RungRunner<T> runner(device, rung, n, options.groups_per_unit);
        queue.fill(runner.result(), poison<T>());
        RungResult row;
        row.rung = rung.title;
        row.backend = device.backend();
        row.device = device.info().name;
        row.work = static_cast<double>(n * sizeof(T));  // bytes read
        row.timing = time_on_device(queue, options.warmup, options.repetitions,
                                    [&] { runner.enqueue(queue, buffer); });
        std::vector<T> result(1);
        queue.copy(result, runner.result(), Sync::blocking);  // the last timed run's
        row.verified = check(result[0], input, rounding_depth(runner.passes()), row.note);
        rows.push_back(std::move(row));
    }
    return rows;
}

template std::vector<RungResult> measure_rungs(const Device&, const Input<float>&,
                                               const MeasureOptions&);
template std::vector<RungResult> measure_rungs(const Device&, const Input<std::int32_t>&,
                                               const MeasureOptions&);

bool measure_copy(const Device& device, const Input<float>& input, const MeasureOptions& options,
                  RungResult& row, std::string& why_not) {
    Kernel kernel;
    try {
        kernel = device.kernel("copy_f32");
    } catch (const Error& e) {
        if (e.errc() != Errc::not_found) throw;
        why_not = e.what();
        return false;
    }
    if (options.step) options.step("copy_f32");
    const std::size_t n = input.host.size();
    auto queue = device.create_queue();
    auto src = device.alloc<float>(n);
    auto dst = device.alloc<float>(n);
    queue.copy(src, input.host);
    queue.fill(dst, poison<float>());
    const auto count = static_cast<std::uint32_t>(n);
    row.rung = copy_rung;
    row.backend = device.backend();
    row.device = device.info().name;
    row.work = 2.0 * static_cast<double>(n * sizeof(float));  // read and written
    row.timing = time_on_device(queue, options.warmup, options.repetitions, [&] {
        queue.launch(kernel, Range(n), Range(group_size), count, src, dst);
    });
    std::vector<float> out(n);
    queue.copy(out, dst, Sync::blocking);
    row.verified = std::memcmp(out.data(), input.host.data(), n * sizeof(float)) == 0;
    if (!row.verified) row.note = "the copy differs from its source";
    return true;
}

template <typename T>
RungResult measure_vendor(bench::VendorBaseline& vendor, const Device& device,
                          const Input<T>& input, const MeasureOptions& options) {
    if (options.step) options.step(std::string("CUB ") + type_tag<T>());
    const std::size_t n = input.host.size();
    T sum = poison<T>();
    const bench::VendorTiming timing =
        vendor.reduce_sum(input.host.data(), n, options.warmup, options.repetitions, sum);
    RungResult row;
    row.rung = vendor_rung;
    row.backend = device.backend();
    row.device = device.info().name;
    row.work = static_cast<double>(n * sizeof(T));
    row.timing = {timing.median_ms, timing.min_ms, timing.max_ms, timing.repetitions};
    // CUB's order of additions is its own: bound it by a running sum over n / (256 work-items
    // per multiprocessor), fewer than CUB runs, plus 64 for its trees and second pass.
    const std::size_t items =
        std::max<std::size_t>(device.info().compute_units, 1) * group_size;
    row.verified = check(sum, input, n / items + 64, row.note);
    row.note = row.verified ? "vendor library" : row.note;
    return row;
}

template RungResult measure_vendor(bench::VendorBaseline&, const Device&, const Input<float>&,
                                   const MeasureOptions&);
template RungResult measure_vendor(bench::VendorBaseline&, const Device&,
                                   const Input<std::int32_t>&, const MeasureOptions&);

}  // namespace dualrt::samples::reduce
