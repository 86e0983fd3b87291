// A plain-text table for the benchmarks' output: columns sized to their widest cell.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace dualrt::samples {

class Table {
public:
    explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    void print(std::ostream& out) const;
    bool empty() const { return rows_.empty(); }

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

}  // namespace dualrt::samples
