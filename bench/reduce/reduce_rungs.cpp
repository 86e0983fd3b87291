#include "reduce_rungs.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace dualrt::samples::reduce {

template <>
const char* type_tag<float>() {
    return "f32";
}
template <>
const char* type_tag<std::int32_t>() {
    return "i32";
}

const std::vector<Rung>& rungs() {
    static const std::vector<Rung> all = {
        {1, "interleaved_divergent", "1 interleaved, divergent"},
        {2, "interleaved_strided", "2 interleaved, strided index"},
        {3, "sequential", "3 sequential addressing"},
        {4, "first_add", "4 first add during load"},
        {5, "unrolled_warp", "5 unrolled last warp"},
        {6, "grid_stride", "6 grid-stride, 16-byte loads"},
    };
    return all;
}

template <typename T>
std::string kernel_name(const Rung& rung) {
    return std::string("reduce_") + type_tag<T>() + "_" + std::to_string(rung.number) + "_" +
           rung.slug;
}
template std::string kernel_name<float>(const Rung&);
template std::string kernel_name<std::int32_t>(const Rung&);

namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

std::size_t log2_of(std::size_t power_of_two) {
    std::size_t log = 0;
    while ((std::size_t{1} << log) < power_of_two) ++log;
    return log;
}

constexpr int grid_stride_rung = 6;
constexpr std::size_t vector_width = 4;  // rung 6 reads 4 elements (16 bytes) per load

}  // namespace

std::vector<Pass> plan(int number, std::size_t n, std::uint32_t compute_units,
                       std::size_t groups_per_unit) {
    std::vector<Pass> passes;
    if (number == grid_stride_rung) {
        // Enough groups to fill the device, but not more than give each work-item one vector.
        const std::size_t full = std::max<std::size_t>(compute_units, 1) *
                                 std::max<std::size_t>(groups_per_unit, 1);
        const std::size_t groups =
            std::max<std::size_t>(1, std::min(full, ceil_div(n, group_size * vector_width)));
        passes.push_back({n, groups});
        if (groups > 1) passes.push_back({groups, 1});
        return passes;
    }
    const std::size_t per_group = number >= 4 ? 2 * group_size : group_size;
    std::size_t count = n;
    do {
        const std::size_t groups = std::max<std::size_t>(1, ceil_div(count, per_group));
        passes.push_back({count, groups});
        count = groups;
    } while (count > 1);
    return passes;
}

std::size_t rounding_depth(const std::vector<Pass>& passes) {
    std::size_t depth = 0;
    for (const auto& pass : passes) {
        const std::size_t items = pass.groups * group_size;
        // A work-item's own sum before the tree: rung 6 strides over ceil(count / 4 / items)
        // vectors per lane, then adds the lanes (2), its head and tail elements (2) and the
        // vector sum (1); the others add at most two elements. Counting rung 6's worst case for
        // every rung keeps this independent of the rung and is still tight enough.
        const std::size_t own = ceil_div(pass.count, vector_width * items) + 5;
        depth += own + log2_of(group_size);
    }
    return depth;
}

double float_tolerance(std::size_t depth, double sum_abs) {
    const double unit_roundoff = 1.0 / 16777216.0;  // 2^-24: float's relative rounding error
    return 1.01 * static_cast<double>(depth) * unit_roundoff * sum_abs;
}

template <typename T>
RungRunner<T>::RungRunner(const Device& device, const Rung& rung, std::size_t n,
                          std::size_t groups_per_unit)
    : n_(n) {
    if (n > std::numeric_limits<std::uint32_t>::max()) {
        ErrorInfo info;
        info.errc = Errc::invalid_argument;
        info.backend = "dualrt";
        info.call = "reduce::RungRunner";
        info.detail = std::to_string(n) + " elements: the reduce kernels count in 32 bits";
        throw Error(info);
    }
    kernel_ = device.kernel(kernel_name<T>(rung));
    passes_ = plan(rung.number, n, device.info().compute_units, groups_per_unit);
    // Pass k < last writes partials_[k % 2]; the groups shrink from pass to pass, so the first
    // two passes size the two buffers.
    for (std::size_t k = 0; k + 1 < passes_.size() && k < 2; ++k)
        partials_[k] = device.alloc<T>(passes_[k].groups);
    result_ = device.alloc<T>(1);
}

template <typename T>
void RungRunner<T>::enqueue(Queue& queue, const Buffer<T>& input) const {
    if (input.size() != n_) {
        ErrorInfo info;
        info.errc = Errc::invalid_argument;
        info.backend = "dualrt";
        info.call = "reduce::RungRunner::enqueue";
        info.detail = "the input holds " + std::to_string(input.size()) + " elements, not " +
                      std::to_string(n_);
        throw Error(info);
    }
    for (std::size_t k = 0; k < passes_.size(); ++k) {
        const Pass& pass = passes_[k];
        const Buffer<T>& in = k == 0 ? input : partials_[(k - 1) % 2];
        const Buffer<T>& out = k + 1 == passes_.size() ? result_ : partials_[k % 2];
        queue.launch(kernel_, Range(pass.groups * group_size), Range(group_size), in, out,
                     local_bytes(group_size * sizeof(T)), static_cast<std::uint32_t>(pass.count));
    }
}

template class RungRunner<float>;
template class RungRunner<std::int32_t>;

}  // namespace dualrt::samples::reduce
