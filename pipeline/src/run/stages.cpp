#include "run/stages.hpp"

#include <algorithm>
#include <cstdio>

namespace dualrt::detail {

const char* stage_name(std::size_t stage) {
    static const char* const names[stage_count] = {"host", "upload", "compute", "download"};
    return stage < stage_count ? names[stage] : "?";
}

std::string StageModels::describe() const {
    std::string text;
    for (std::size_t s = 0; s < stage_count; ++s) {
        char part[96];
        std::snprintf(part, sizeof part, "%s%s %.1f us + %.4f ns/element", s ? ", " : "",
                      stage_name(s), stage[s].fixed_ms * 1e3, stage[s].per_element_ms * 1e6);
        text += part;
    }
    return text;
}

double StageModels::busiest_at(double elements) const {
    return std::max({stage[upload_stage].at(elements), stage[compute_stage].at(elements),
                     stage[download_stage].at(elements)});
}

}  // namespace dualrt::detail
