#include "tune/stage_model.hpp"

#include "run/median.hpp"

#include <cmath>
#include <vector>

namespace dualrt::detail {

void StageSamples::add(double elements, double ms) {
    if (!(elements >= 1.0) || !std::isfinite(ms) || ms < 0.0) return;
    per_element_ms_.push_back(ms / elements);
    if (per_element_ms_.size() > kept) per_element_ms_.pop_front();
    fitted_.reset();
}

StageModel StageSamples::fit() const {
    if (!fitted_)
        fitted_ = StageModel{
            0.0, median(std::vector<double>(per_element_ms_.begin(), per_element_ms_.end()))};
    return *fitted_;
}

StageModels LayoutModel::fit() const {
    StageModels models;
    for (std::size_t s = 0; s < stage_count; ++s) models.stage[s] = samples[s].fit();
    return models;
}

}  // namespace dualrt::detail
