// The library's spdlog logger, shared by the core and the backend modules. Internal.
#pragma once

#include <spdlog/logger.h>

namespace dualrt::detail {

// The "dualrt" logger. Its level comes from DUALRT_LOG the first time it is used (default: warn);
// an unknown level name throws dualrt::Error listing the valid names.
spdlog::logger& log();

// Throws what log() would for the current value of DUALRT_LOG, read now (log() reads it once).
void check_log_level();

}  // namespace dualrt::detail
