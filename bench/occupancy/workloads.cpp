#include "workloads.hpp"

#include "options.hpp"
#include "fma_reference.hpp"
#include "splitmix.hpp"

#include <cstring>
#include <limits>

namespace dualrt::samples::occupancy {
namespace {

// A float in [1, 2) from 23 random mantissa bits: always normal, and never the NaN poison.
float in_one_two(std::uint64_t bits) {
    const std::uint32_t pattern = (static_cast<std::uint32_t>(bits) & 0x007FFFFFu) | 0x3F800000u;
    float value;
    std::memcpy(&value, &pattern, sizeof value);
    return value;
}

std::uint32_t u32(std::size_t n) { return static_cast<std::uint32_t>(n); }

std::string first_difference(std::size_t count, std::size_t n, std::size_t first, float got,
                             float expected) {
    return std::to_string(count) + " of " + std::to_string(n) + " elements differ, the first [" +
           std::to_string(first) + "]: got " + std::to_string(got) + ", expected " +
           std::to_string(expected);
}

}  // namespace

CopyWorkload::CopyWorkload(std::size_t elements) : Workload(elements), input_(elements) {
    std::uint64_t state = 0xC0B1u;
    for (auto& value : input_) value = in_one_two(splitmix64(state));
}

std::string CopyWorkload::describe() const {
    return "copy_f32, " + std::to_string(elements()) + " floats (" +
           format_bytes(elements() * sizeof(float)) +
           " per buffer); GB/s = 2 * 4 bytes * elements / time";
}

double CopyWorkload::work() const { return 2.0 * sizeof(float) * static_cast<double>(elements()); }

void CopyWorkload::prepare(const Device& device, Queue& queue) {
    release();
    src_ = device.alloc<float>(elements());
    dst_ = device.alloc<float>(elements());
    queue.copy(src_, input_, Sync::blocking);
}

void CopyWorkload::poison(Queue& queue) {
    queue.fill(dst_, std::numeric_limits<float>::quiet_NaN());
}

void CopyWorkload::launch(Queue& queue, const Kernel& kernel, std::size_t group_size) {
    queue.launch(kernel, elements(), group_size, u32(elements()), src_, dst_);
}

std::string CopyWorkload::verify(Queue& queue) {
    std::vector<float> out(elements());
    queue.copy(out, dst_, Sync::blocking);
    std::size_t count = 0, first = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (std::memcmp(&out[i], &input_[i], sizeof(float)) == 0) continue;
        if (count++ == 0) first = i;
    }
    return count == 0 ? std::string()
                      : first_difference(count, out.size(), first, out[first], input_[first]);
}

void CopyWorkload::release() {
    src_ = {};
    dst_ = {};
}

FmaWorkload::FmaWorkload(std::size_t elements, std::uint32_t iterations)
    : Workload(elements), iterations_(iterations), which_(elements) {
    std::uint64_t state = 0xF3Au;
    for (std::size_t k = 0; k < distinct_inputs; ++k) {
        table_.push_back(in_one_two(splitmix64(state)));
        expected_.push_back(fma_chain_reference(table_.back(), iterations_));
    }
    for (auto& entry : which_)
        entry = static_cast<std::uint16_t>(splitmix64(state) % distinct_inputs);
}

std::string FmaWorkload::describe() const {
    return "fma_chain, " + std::to_string(elements()) + " floats, " +
           std::to_string(iterations_) + " iterations of 4 chains; GFLOP/s = " +
           std::to_string(static_cast<int>(fma_chain_flops_per_iteration)) +
           " * iterations * elements / time (FMAs only)";
}

double FmaWorkload::work() const {
    return fma_chain_flops_per_iteration * iterations_ * static_cast<double>(elements());
}

void FmaWorkload::prepare(const Device& device, Queue& queue) {
    release();
    src_ = device.alloc<float>(elements());
    dst_ = device.alloc<float>(elements());
    std::vector<float> input(elements());
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = table_[which_[i]];
    queue.copy(src_, input, Sync::blocking);
}

void FmaWorkload::poison(Queue& queue) {
    queue.fill(dst_, std::numeric_limits<float>::quiet_NaN());
}

void FmaWorkload::launch(Queue& queue, const Kernel& kernel, std::size_t group_size) {
    queue.launch(kernel, elements(), group_size, u32(elements()), iterations_, src_, dst_);
}

std::string FmaWorkload::verify(Queue& queue) {
    std::vector<float> out(elements());
    queue.copy(out, dst_, Sync::blocking);
    std::size_t count = 0, first = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (fma_chain_close(out[i], expected_[which_[i]])) continue;
        if (count++ == 0) first = i;
    }
    return count == 0 ? std::string()
                      : first_difference(count, out.size(), first, out[first],
                                         expected_[which_[first]]);
}

void FmaWorkload::release() {
    src_ = {};
    dst_ = {};
}

}  // namespace dualrt::samples::occupancy
