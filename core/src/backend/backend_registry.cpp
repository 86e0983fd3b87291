#include "backend/backend_registry.hpp"

#include "backend/module_loader.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <mutex>

namespace dualrt::detail {
namespace {

// One slot per backend, filled by the first caller under the slot's once_flag.
struct Slot {
    std::once_flag once;
    BackendStatus status;
    std::unique_ptr<backend::BackendImpl> impl;
};

Slot& slot_of(Backend backend) {
    static Slot slots[2];
    return slots[backend == Backend::cuda ? 0 : 1];
}

void load(Backend kind, Slot& slot) {
    slot.status.backend = kind;
    const auto module = load_backend_module(to_string(kind));
    slot.status.module_path = module.path;
    if (module.descriptor == nullptr) {
        slot.status.reason = module.reason;
        log().info("{} backend unavailable: {}", to_string(kind), module.reason);
        return;
    }
    try {
        slot.impl = module.descriptor->create();
        slot.status.version = slot.impl->version();
        slot.status.device_count = slot.impl->devices().size();
        slot.status.available = slot.status.device_count > 0;
        if (!slot.status.available) slot.status.reason = "no devices found";
    } catch (const Error& e) {
        slot.impl.reset();
        slot.status.reason = e.detail().empty() ? e.what() : e.detail();
    } catch (const std::exception& e) {
        slot.impl.reset();
        slot.status.reason = std::string("backend failed to start: ") + e.what();
    }
    if (slot.status.available)
        log().info("{} backend: {} ({} devices)", to_string(kind), slot.status.version,
                   slot.status.device_count);
    else
        log().info("{} backend unavailable: {}", to_string(kind), slot.status.reason);
}

Slot& loaded(Backend backend) {
    log();  // a bad DUALRT_LOG is reported before anything else happens
    Slot& slot = slot_of(backend);
    std::call_once(slot.once, [&] { load(backend, slot); });
    return slot;
}

}  // namespace

const std::vector<Backend>& known_backends() {
    static const std::vector<Backend> order{Backend::cuda, Backend::opencl};
    return order;
}

BackendStatus backend_status(Backend backend) { return loaded(backend).status; }

backend::BackendImpl& backend_impl(Backend backend) {
    Slot& slot = loaded(backend);
    if (!slot.status.available) {
        ErrorInfo info;
        info.errc = Errc::unavailable;
        info.backend = to_string(backend);
        info.call = "loading the backend";
        info.detail = slot.status.reason;
        raise(std::move(info));
    }
    return *slot.impl;
}

const std::vector<std::shared_ptr<backend::DeviceImpl>>& backend_devices(Backend backend) {
    return backend_impl(backend).devices();
}

}  // namespace dualrt::detail
