// The reduction ladder as the host runs it: the rungs (kernels/*/reduce.*), the passes each one
// needs to bring n elements down to one value, and the buffers between the passes. The `reduce`
// benchmark times these; the conformance tests (tests/ladders/test_reduce.cpp) check them.
#pragma once

#include <dualrt/dualrt.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dualrt::samples::reduce {

// The element types of the ladder: "f32" (float) and "i32" (std::int32_t) in kernel names.
template <typename T>
const char* type_tag();

struct Rung {
    int number = 0;     // 1..6, its place in the ladder
    std::string slug;   // the last part of the kernel name: "interleaved_divergent"
    std::string title;  // the report's rung column: "1 interleaved, divergent"
};

// The six rungs, in order.
const std::vector<Rung>& rungs();

// "reduce_f32_3_sequential".
template <typename T>
std::string kernel_name(const Rung& rung);

// Every kernel runs in work-groups of this many work-items: a power of two of at least 64, as the
// kernels need, and small enough for every OpenCL device we know.
constexpr std::size_t group_size = 256;
// Rung 6's first pass runs this many work-groups per compute unit by default (fewer for small n),
// each striding over the whole input. 8 x 256 work-items fill a Hopper multiprocessor (2048
// threads, at the 32 registers the CUDA kernel needs), so all of them are resident at once. On an
// H200, 4, 8 and 16 gave the same time within 1% (the program's --groups-per-unit).
constexpr std::size_t default_groups_per_unit = 8;

// One launch: `groups` work-groups read `count` elements and write one sum each.
struct Pass {
    std::size_t count = 0;
    std::size_t groups = 0;
};

// The passes of rung `number` over n elements on a device of `compute_units`. Rungs 1-5 are
// applied again to their own partial sums until one is left (each group reduces `group_size`
// elements, or twice that from rung 4 on); rung 6 runs compute_units * groups_per_unit groups
// (fewer when n is small), then one group over their sums. The last pass always has one group,
// and n = 0 or 1 is one pass too.
std::vector<Pass> plan(int number, std::size_t n, std::uint32_t compute_units,
                       std::size_t groups_per_unit = default_groups_per_unit);

// How many additions any one element's value can pass through on its way to the result, at most,
// for a float tolerance: per pass, the work-item's own running sum (its share of the elements,
// plus the vector and head/tail terms) and the tree over the group (log2 group_size), summed over
// the passes.
std::size_t rounding_depth(const std::vector<Pass>& passes);

// The largest error a float sum in that order can have: each addition rounds by at most
// 2^-24 of its result, which is at most sum_abs, so the error is below depth * 2^-24 * sum_abs
// (to first order; a 1% margin covers the rest).
double float_tolerance(std::size_t depth, double sum_abs);

// One rung on one device for inputs of n elements: the kernel and the partial-sum buffers,
// allocated once, so that enqueue() is only launches (and can be timed as a whole).
template <typename T>
class RungRunner {
public:
    // Throws Errc::invalid_argument when n does not fit the kernels' uint.
    RungRunner(const Device& device, const Rung& rung, std::size_t n,
               std::size_t groups_per_unit = default_groups_per_unit);

    // Enqueues every pass over input[0, n) on `queue`; the sum lands in result()[0].
    void enqueue(Queue& queue, const Buffer<T>& input) const;

    const Buffer<T>& result() const { return result_; }
    const std::vector<Pass>& passes() const { return passes_; }
    std::size_t size() const { return n_; }

private:
    Kernel kernel_;
    std::size_t n_ = 0;
    std::vector<Pass> passes_;
    Buffer<T> partials_[2];  // ping-pong between passes; the last pass writes result_
    Buffer<T> result_;
};

extern template class RungRunner<float>;
extern template class RungRunner<std::int32_t>;

}  // namespace dualrt::samples::reduce
