#include "ladder_compare.hpp"

#include <cfloat>
#include <cmath>

namespace dualrt::samples::vendor_blas {

const matmul::Rung* best_fitting_rung(const DeviceInfo& info) {
    const matmul::Rung* best = nullptr;
    for (const auto& rung : matmul::rungs())
        if (rung.local_x * rung.local_y <= info.max_work_group_size &&
            rung.local_x <= info.max_work_item_sizes[0] &&
            rung.local_y <= info.max_work_item_sizes[1])
            best = &rung;
    return best;
}

std::string disagreement(const std::vector<float>& x, const std::vector<float>& y, std::size_t k) {
    if (x.size() != y.size())
        return "sizes differ: " + std::to_string(x.size()) + " and " + std::to_string(y.size());
    const double bound = static_cast<double>(k) * static_cast<double>(k) * FLT_EPSILON;
    std::size_t count = 0;
    std::string report;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double gap = std::fabs(static_cast<double>(x[i]) - static_cast<double>(y[i]));
        if (gap <= bound) continue;  // false for a NaN
        if (++count <= 3)
            report += " [" + std::to_string(i) + "] " + std::to_string(x[i]) + " vs " +
                      std::to_string(y[i]) + ";";
    }
    if (count == 0) return {};
    return std::to_string(count) + " of " + std::to_string(x.size()) +
           " elements differ by more than " + std::to_string(bound) + ":" + report;
}

}  // namespace dualrt::samples::vendor_blas
