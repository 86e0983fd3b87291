#include "ladder.hpp"

#include "native_common.hpp"
#include "table.hpp"

#include <algorithm>
#include <iostream>
#include <stdexcept>

namespace dualrt::samples {

std::vector<Device> ladder_devices(const Args& args, std::ostream& notes) {
    const Selection chosen = args.selection();
    std::vector<std::string> backends;
    if (chosen.backend == "auto")
        backends = {to_string(Backend::cuda), to_string(Backend::opencl)};
    else
        backends = {chosen.backend};
    std::vector<Device> found;
    for (const auto& backend : backends) {
        Selection one = chosen;
        one.backend = backend;
        try {
            found.push_back(select(one));
        } catch (const Error& e) {
            // One named backend that fails is the user's error; with auto it is a skip.
            if (chosen.backend != "auto") throw;
            notes << "skipping " << backend << ": " << e.what() << "\n";
            if (backend == backends.back() && found.empty()) throw;
        }
    }
    return found;
}

Timing time_on_device(Queue& queue, int warmup, int repetitions,
                      const std::function<void()>& enqueue) {
    for (int i = 0; i < warmup; ++i) enqueue();
    std::vector<Event> marks;
    marks.reserve(static_cast<std::size_t>(repetitions) + 1);
    // Back-to-back runs between consecutive marks: each mark ends one run and starts the next,
    // so the queue never drains between them and no host latency enters the figures.
    marks.push_back(queue.record());
    for (int i = 0; i < repetitions; ++i) {
        enqueue();
        marks.push_back(queue.record());
    }
    queue.finish();
    std::vector<double> times;
    for (std::size_t i = 1; i < marks.size(); ++i)
        times.push_back(Event::elapsed_ms(marks[i - 1], marks[i]));
    Timing timing;
    timing.repetitions = repetitions;
    timing.min_ms = *std::min_element(times.begin(), times.end());
    timing.max_ms = *std::max_element(times.begin(), times.end());
    timing.median_ms = bench::detail::median(std::move(times));
    return timing;
}

void add_timing_options(Args& args) {
    args.add_integer("warmup", "N", "untimed runs of each rung before the timed ones", 3, 0,
                     1000);
    args.add_integer("repetitions", "N", "timed runs of each rung (the median is shown)", 20, 1,
                     100000);
}

int warmup_runs(const Args& args) { return static_cast<int>(args.integer("warmup")); }
int repetitions(const Args& args) { return static_cast<int>(args.integer("repetitions")); }

double RungResult::rate() const {
    return timing.median_ms > 0.0 ? work / (timing.median_ms * 1e-3) / 1e9 : 0.0;
}

LadderReport::LadderReport(std::string family, std::string unit)
    : family_(std::move(family)), unit_(std::move(unit)) {}

void LadderReport::add(RungResult row) { rows_.push_back(std::move(row)); }

void LadderReport::add_reference(const std::string& column, const std::string& rung_name) {
    if (references_.size() == max_references)
        throw std::logic_error("LadderReport: at most " + std::to_string(max_references) +
                               " reference columns");
    references_.push_back({column, rung_name});
}

const RungResult* LadderReport::find(const std::string& rung, Backend backend) const {
    for (const auto& row : rows_)
        if (row.rung == rung && row.backend == backend) return &row;
    return nullptr;
}

const RungResult* LadderReport::reference_for(const RungResult& row,
                                              const std::string& rung) const {
    const RungResult* other_backend = nullptr;
    for (const auto& candidate : rows_) {
        if (candidate.rung != rung || candidate.device != row.device) continue;
        if (candidate.backend == row.backend) return &candidate;
        other_backend = &candidate;
    }
    return other_backend;
}

double LadderReport::share_of(const RungResult& row, const std::string& reference_rung) const {
    const RungResult* reference = reference_for(row, reference_rung);
    return reference && reference->rate() > 0.0 ? row.rate() / reference->rate() : 0.0;
}

double LadderReport::opencl_over_cuda(const RungResult& row) const {
    if (row.backend != Backend::opencl) return 0.0;
    for (const auto& twin : rows_)
        if (twin.backend == Backend::cuda && twin.rung == row.rung && twin.device == row.device &&
            twin.timing.median_ms > 0.0)
            return row.timing.median_ms / twin.timing.median_ms;
    return 0.0;
}

bool LadderReport::all_verified() const {
    return std::all_of(rows_.begin(), rows_.end(), [](const auto& r) { return r.verified; });
}

namespace {

std::string percent_or_dash(double share) {
    return share > 0.0 ? fixed(100.0 * share, 1) + "%" : "-";
}

}  // namespace

void LadderReport::print(std::ostream& out) const {
    std::vector<std::string> header = {"rung", "backend", "median ms", unit_};
    for (const auto& reference : references_) header.push_back("% of " + reference.column);
    header.push_back("OpenCL/CUDA");
    header.push_back("check");
    Table table(header);
    for (const auto& row : rows_) {
        std::vector<std::string> cells = {row.rung, to_string(row.backend),
                                          fixed(row.timing.median_ms, 4), fixed(row.rate(), 1)};
        for (const auto& reference : references_)
            cells.push_back(percent_or_dash(share_of(row, reference.rung)));
        const double ratio = opencl_over_cuda(row);
        cells.push_back(ratio > 0.0 ? fixed(ratio, 3) : "-");
        cells.push_back(row.verified ? "ok" : "WRONG: " + row.note);
        table.add(cells);
    }
    table.print(out);
}

std::vector<std::string> LadderReport::csv_header() {
    return {"family", "rung", "backend", "device", "median_ms", "min_ms", "max_ms",
            "repetitions", "work", "unit", "rate", "reference_1", "share_1", "reference_2",
            "share_2", "opencl_over_cuda", "verified", "note"};
}

void LadderReport::write(CsvWriter& csv) const {
    for (const auto& row : rows_) {
        std::vector<std::string> cells = {
            family_, row.rung, to_string(row.backend), row.device,
            fixed(row.timing.median_ms, 6), fixed(row.timing.min_ms, 6),
            fixed(row.timing.max_ms, 6), std::to_string(row.timing.repetitions),
            fixed(row.work, 0), unit_, fixed(row.rate(), 3)};
        for (std::size_t i = 0; i < max_references; ++i) {
            if (i < references_.size()) {
                cells.push_back(references_[i].column);
                cells.push_back(fixed(share_of(row, references_[i].rung), 4));
            } else {
                cells.push_back("");
                cells.push_back("");
            }
        }
        cells.push_back(fixed(opencl_over_cuda(row), 4));
        cells.push_back(row.verified ? "1" : "0");
        cells.push_back(row.note);
        csv.row(cells);
    }
}

CsvWriter open_ladder_csv(const Args& args) {
    if (args.csv_path().empty()) return CsvWriter();
    return CsvWriter(args.csv_path(), LadderReport::csv_header());
}

int finish_ladder(const std::string& sample, const CsvWriter& csv, bool all_verified) {
    if (csv.enabled()) std::cout << "\nrows written to " << csv.path() << "\n";
    if (all_verified) return 0;
    std::cerr << sample << ": some results differ from the CPU reference (WRONG rows above)\n";
    return 1;
}

}  // namespace dualrt::samples
