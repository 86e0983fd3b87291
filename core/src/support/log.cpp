#include "support/log.hpp"

#include <dualrt/runtime.hpp>

#include "support/raise.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>
#include <string>

namespace dualrt::detail {
namespace {

spdlog::level::level_enum level_from_environment() {
    const char* value = std::getenv(env_log);
    if (value == nullptr || *value == '\0') return spdlog::level::warn;
    const std::string text = value;
    // spdlog::level::from_str maps unknown names to "off"; we want unknown names to be errors.
    for (int lvl = spdlog::level::trace; lvl < spdlog::level::n_levels; ++lvl) {
        const auto level = static_cast<spdlog::level::level_enum>(lvl);
        const auto name = spdlog::level::to_string_view(level);
        if (text == std::string(name.data(), name.size())) return level;
    }
    // spdlog names it "warning" (1.10) or "warn" (later); accept both spellings everywhere.
    if (text == "warning" || text == "warn") return spdlog::level::warn;
    raise_argument(std::string("reading ") + env_log,
                   "unknown log level '" + text +
                       "'; expected one of: off, critical, error, warn, info, debug, trace",
                   Errc::invalid_argument);
}

std::shared_ptr<spdlog::logger> make_logger() {
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto logger = std::make_shared<spdlog::logger>("dualrt", sink);
    logger->set_pattern("[dualrt %l] %v");
    logger->set_level(level_from_environment());
    return logger;
}

}  // namespace

void check_log_level() { level_from_environment(); }

spdlog::logger& log() {
    // A bad DUALRT_LOG throws from here; the next call tries again (static init is retried).
    static const std::shared_ptr<spdlog::logger> logger = make_logger();
    return *logger;
}

}  // namespace dualrt::detail
