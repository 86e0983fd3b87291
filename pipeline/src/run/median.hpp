// The median of a few measurements. Internal.
#pragma once

#include <algorithm>
#include <vector>

namespace dualrt::detail {

// The median of `values` (the mean of the middle two for an even count; 0 for none). Medians,
// not means, wherever one stalled measurement must not move an estimate.
inline double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace dualrt::detail
