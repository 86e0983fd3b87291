// The backend registry: loads each backend module once, on first use, and remembers why a
// backend is unavailable. Internal.
#pragma once

#include <dualrt/runtime.hpp>

#include "backend/backend.hpp"

#include <memory>
#include <vector>

namespace dualrt::detail {

// Every backend dualrt knows, in auto-selection order.
const std::vector<Backend>& known_backends();

// Loads the backend on first call (thread-safe) and reports how that went. Never throws for an
// unavailable backend.
BackendStatus backend_status(Backend backend);

// The loaded backend, owned by the registry for the life of the process; throws
// Errc::unavailable with the reason when it cannot be used.
backend::BackendImpl& backend_impl(Backend backend);

// The devices of a backend; throws Errc::unavailable with the reason when it cannot be used.
const std::vector<std::shared_ptr<backend::DeviceImpl>>& backend_devices(Backend backend);

}  // namespace dualrt::detail
