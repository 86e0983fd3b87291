#include "planning/stage_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace dualrt::detail {
namespace {

// The median of values[0, n), which it reorders (0 for none).
double median_of(double* values, std::size_t n) {
    if (n == 0) return 0.0;
    std::sort(values, values + n);
    return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

void StageSamples::add(double elements, double ms) {
    if (!(elements >= 1.0) || !std::isfinite(ms) || ms < 0.0) return;
    auto& samples = by_class_[static_cast<int>(std::floor(std::log2(elements)))];
    samples.push_back(Sample{elements, ms});
    if (samples.size() > per_class) samples.pop_front();
    medians_current_ = false;
}

std::size_t StageSamples::size() const {
    std::size_t n = 0;
    for (const auto& entry : by_class_) n += entry.second.size();
    return n;
}

std::size_t StageSamples::size_classes() const { return by_class_.size(); }

const StageSamples::Medians& StageSamples::class_medians() const {
    if (medians_current_) return medians_;
    medians_.xs.clear();
    medians_.ys.clear();
    medians_.lows.clear();
    double elements[per_class], ms[per_class];
    for (const auto& entry : by_class_) {
        const std::size_t n = entry.second.size();
        for (std::size_t k = 0; k < n; ++k) {
            elements[k] = entry.second[k].elements;
            ms[k] = entry.second[k].ms;
        }
        medians_.xs.push_back(median_of(elements, n));
        medians_.ys.push_back(median_of(ms, n));  // sorts ms: its least is first
        medians_.lows.push_back(ms[0]);
    }
    medians_current_ = true;
    return medians_;
}

StageModel StageSamples::fit(bool floor) const {
    // One point per size class, so that a size timed often does not outweigh the others.
    const Medians& medians = class_medians();
    const std::vector<double>& xs = medians.xs;
    const std::vector<double>& ys = floor ? medians.lows : medians.ys;
    StageModel model;
    if (xs.empty()) return model;
    const double n = static_cast<double>(xs.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        sx += xs[i];
        sy += ys[i];
        sxx += xs[i] * xs[i];
        sxy += xs[i] * ys[i];
    }
    const double spread = n * sxx - sx * sx;
    if (xs.size() >= 2 && spread > 0.0) {
        model.per_element_ms = (n * sxy - sx * sy) / spread;
        model.fixed_ms = (sy - model.per_element_ms * sx) / n;
    } else {
        model.per_element_ms = sy / sx;  // one size: no way to tell a fixed cost apart
    }
    if (model.per_element_ms < 0.0) {  // noise on a stage that does not grow with the chunk
        model.per_element_ms = 0.0;
        model.fixed_ms = sy / n;
    } else if (model.fixed_ms < 0.0) {  // a line through the origin fits best
        model.fixed_ms = 0.0;
        model.per_element_ms = sxy / sxx;
    }
    return model;
}

StageModels LayoutModel::fit() const {
    StageModels models;
    // The host's work per chunk is the least time it took of the latest samples of its size:
    // the rest is the thread held up by one-off costs (on NVIDIA's OpenCL the first chunk of each
    // lane takes 100-750 us against 10-50 us for the others).
    for (std::size_t s = 0; s < stage_count; ++s) models.stage[s] = samples[s].fit(s == host_stage);
    return models;
}

}  // namespace dualrt::detail
