#include "table.hpp"

#include <algorithm>

namespace dualrt::samples {

void Table::print(std::ostream& out) const {
    std::vector<std::size_t> width(header_.size(), 0);
    auto widen = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size() && i < width.size(); ++i)
            width[i] = std::max(width[i], row[i].size());
    };
    widen(header_);
    for (const auto& row : rows_) widen(row);
    auto line = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < width.size(); ++i) {
            const std::string cell = i < row.size() ? row[i] : "";
            out << cell;
            if (i + 1 < width.size()) out << std::string(width[i] - cell.size() + 2, ' ');
        }
        out << '\n';
    };
    line(header_);
    std::vector<std::string> rule;
    for (auto w : width) rule.emplace_back(w, '-');
    line(rule);
    for (const auto& row : rows_) line(row);
}

}  // namespace dualrt::samples
