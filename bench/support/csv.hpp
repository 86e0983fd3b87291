// A small CSV writer for the benchmarks' --csv option: fields holding a comma, a quote or a line
// break are quoted and their quotes doubled (RFC 4180); rows end with '\n'.
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace dualrt::samples {

class CsvWriter {
public:
    CsvWriter() = default;  // writes nothing: for when --csv was not given
    // Opens (truncates) `path` and writes the header row. Throws std::runtime_error naming the
    // file and the reason when it cannot be written.
    CsvWriter(const std::string& path, const std::vector<std::string>& header);

    bool enabled() const { return out_.is_open(); }
    const std::string& path() const { return path_; }
    void row(const std::vector<std::string>& cells);  // no-op when not enabled; throws on failure

private:
    std::string path_;
    std::ofstream out_;
};

// A number as a field or table cell with `decimals` digits after the point ("12.35").
std::string fixed(double value, int decimals);

}  // namespace dualrt::samples
