#include "csv.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace dualrt::samples {
namespace {

[[noreturn]] void cannot_write(const std::string& path) {
    const int error = errno;
    throw std::runtime_error("cannot write CSV file '" + path + "'" +
                             (error != 0 ? std::string(": ") + std::strerror(error) : ""));
}

std::string quote(const std::string& field) {
    if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
    std::string out = "\"";
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

}  // namespace

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& header)
    : path_(path) {
    errno = 0;
    out_.open(path, std::ios::out | std::ios::trunc);
    if (!out_) cannot_write(path);
    row(header);
}

void CsvWriter::row(const std::vector<std::string>& cells) {
    if (!enabled()) return;
    for (std::size_t i = 0; i < cells.size(); ++i) out_ << (i ? "," : "") << quote(cells[i]);
    out_ << "\n";
    out_.flush();  // rows survive a later failure of the program
    if (!out_) cannot_write(path_);
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

}  // namespace dualrt::samples
