// Halo: the values and their words. (The rest of pipeline_arrays.hpp is templates.)
#include <dualrt/pipeline_arrays.hpp>

#include "support/raise.hpp"

namespace dualrt {

Halo Halo::elements(std::size_t before, std::size_t after) {
    Halo halo;
    halo.before_ = before;
    halo.after_ = after;
    return halo;
}

Halo Halo::rows(std::size_t row_width, std::size_t rows_before, std::size_t rows_after) {
    if (row_width == 0)
        detail::raise_argument("Halo::rows", "the row width is 0; expected the number of "
                                             "elements in one row (at least 1)");
    Halo halo;
    halo.row_width_ = row_width;
    halo.before_ = rows_before * row_width;
    halo.after_ = rows_after * row_width;
    return halo;
}

std::string Halo::str() const {
    if (row_width_ > 1) {
        const std::size_t before_rows = before_ / row_width_, after_rows = after_ / row_width_;
        const auto rows = [](std::size_t n) {
            return std::to_string(n) + (n == 1 ? " row" : " rows");
        };
        const std::string width = " of " + std::to_string(row_width_);
        if (before_rows == after_rows) return rows(before_rows) + width + " before and after";
        return rows(before_rows) + width + " before, " + rows(after_rows) + " after";
    }
    if (empty()) return "none";
    return std::to_string(before_) + " before, " + std::to_string(after_) + " after";
}

}  // namespace dualrt
