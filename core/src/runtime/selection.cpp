// dualrt::backends(), devices() and select(): the policy of DUALRT_BACKEND / DUALRT_DEVICE.
#include <dualrt/runtime.hpp>

#include "backend/backend_registry.hpp"
#include "support/environment.hpp"
#include "support/log.hpp"
#include "support/raise.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

namespace dualrt {
namespace {

std::string lowercase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

std::optional<std::size_t> parse_index(const std::string& text) {
    if (text.empty() || !std::all_of(text.begin(), text.end(),
                                     [](unsigned char c) { return std::isdigit(c) != 0; }))
        return std::nullopt;
    if (text.size() > 9) return std::nullopt;
    return static_cast<std::size_t>(std::stoul(text));
}

// "cuda: available, 1 device; opencl: libOpenCL.so.1 not found" -- what exists and why not.
// `skip` leaves out the backend whose reason the message already gives.
std::string describe_backends(std::optional<Backend> skip) {
    std::string out;
    for (const auto kind : detail::known_backends()) {
        if (skip == kind) continue;
        const auto status = detail::backend_status(kind);
        if (!out.empty()) out += "; ";
        out += to_string(kind);
        out += ": ";
        if (status.available)
            out += "available, " + std::to_string(status.device_count) + " device(s)";
        else
            out += status.reason;
    }
    return out;
}

std::string describe_devices(const std::vector<Device>& devices) {
    std::string out;
    for (const auto& device : devices) {
        if (!out.empty()) out += ", ";
        out += std::to_string(device.info().index) + ": " + to_string(device.backend()) + " '" +
               device.name() + "'";
    }
    return out.empty() ? std::string("none") : out;
}

bool matches(const Device& device, const std::string& needle) {
    const auto& info = device.info();
    const auto want = lowercase(needle);
    // The architecture string is the OpenCL device version, where PoCL says "PoCL".
    for (const auto* field : {&info.name, &info.vendor, &info.platform, &info.architecture})
        if (lowercase(*field).find(want) != std::string::npos) return true;
    return false;
}

[[noreturn]] void fail_selection(Errc errc, const Selection& asked, const std::string& detail,
                                 std::optional<Backend> explained = std::nullopt) {
    ErrorInfo info;
    info.errc = errc;
    info.backend = "dualrt";
    info.call = "select(" + std::string(env_backend) + "=" + asked.backend + ", " + env_device +
                "=" + (asked.device.empty() ? std::string("<default>") : asked.device) + ")";
    const auto others = describe_backends(explained);
    const std::string heading = explained ? "Other backends: " : "Backends: ";
    info.detail = detail + (others.empty() ? "" : ". " + heading + others);
    detail::raise(std::move(info));
}

// DUALRT_DEVICE applied to one backend's devices.
std::optional<Device> pick(const std::vector<Device>& candidates, const Selection& asked,
                           bool prefer_gpu) {
    if (candidates.empty()) return std::nullopt;
    if (asked.device.empty()) {
        if (prefer_gpu)
            for (const auto& d : candidates)
                if (d.info().type == DeviceType::gpu) return d;
        return candidates.front();
    }
    if (const auto index = parse_index(asked.device)) {
        if (*index < candidates.size()) return candidates[*index];
        return std::nullopt;
    }
    for (const auto& d : candidates)
        if (matches(d, asked.device)) return d;
    return std::nullopt;
}

std::optional<Backend> parse_backend(const std::string& text) {
    for (const auto kind : detail::known_backends())
        if (text == to_string(kind)) return kind;
    return std::nullopt;
}

Device select_auto(const Selection& asked) {
    std::vector<Device> all;
    for (const auto kind : detail::known_backends()) {
        if (!detail::backend_status(kind).available) continue;
        auto candidates = devices(kind);
        all.insert(all.end(), candidates.begin(), candidates.end());
        // A numeric DUALRT_DEVICE indexes the first available backend's devices (CUDA if present);
        // a name is searched in every backend, in preference order.
        const bool by_index = parse_index(asked.device).has_value();
        if (auto chosen = pick(candidates, asked, kind == Backend::opencl)) return *chosen;
        if (by_index) {
            fail_selection(Errc::not_found, asked,
                           std::string("device index ") + asked.device + " is out of range for " +
                               to_string(kind) + "; devices: " + describe_devices(candidates));
        }
    }
    if (all.empty()) fail_selection(Errc::unavailable, asked, "no backend is available");
    fail_selection(Errc::not_found, asked,
                   "no device name, vendor, platform or version contains '" + asked.device +
                       "'; devices: " + describe_devices(all));
}

}  // namespace

std::vector<BackendStatus> backends() {
    std::vector<BackendStatus> out;
    for (const auto kind : detail::known_backends()) out.push_back(detail::backend_status(kind));
    return out;
}

std::vector<Device> devices(Backend backend) {
    std::vector<Device> out;
    for (const auto& impl : detail::backend_devices(backend)) out.emplace_back(impl);
    return out;
}

std::vector<Device> devices() {
    std::vector<Device> out;
    for (const auto kind : detail::known_backends()) {
        if (!detail::backend_status(kind).available) continue;
        auto list = devices(kind);
        out.insert(out.end(), list.begin(), list.end());
    }
    return out;
}

Selection Selection::from_environment() {
    Selection selection;
    if (const char* value = std::getenv(env_backend); value != nullptr && *value != '\0')
        selection.backend = value;
    if (const char* value = std::getenv(env_device); value != nullptr) selection.device = value;
    return selection;
}

Device select(const Selection& asked) {
    detail::check_environment();
    if (asked.backend == "auto") {
        auto device = select_auto(asked);
        detail::log().info("selected {} device {} '{}' (auto)", to_string(device.backend()),
                           device.info().index, device.name());
        return device;
    }
    const auto kind = parse_backend(asked.backend);
    if (!kind)
        fail_selection(Errc::invalid_argument, asked,
                       "unknown backend '" + asked.backend +
                           "'; expected one of: auto, cuda, opencl");
    const auto status = detail::backend_status(*kind);
    if (!status.available)
        fail_selection(Errc::unavailable, asked,
                       std::string("the ") + to_string(*kind) + " backend is unavailable: " +
                           status.reason,
                       kind);
    const auto candidates = devices(*kind);
    auto chosen = pick(candidates, asked, *kind == Backend::opencl);
    if (!chosen) {
        const bool by_index = parse_index(asked.device).has_value();
        fail_selection(Errc::not_found, asked,
                       (by_index ? "device index " + asked.device + " is out of range"
                                 : "no device name, vendor, platform or version contains '" +
                                       asked.device + "'") +
                           "; " + to_string(*kind) + " devices: " + describe_devices(candidates));
    }
    detail::log().info("selected {} device {} '{}'", to_string(chosen->backend()),
                       chosen->info().index, chosen->name());
    return *chosen;
}

Device select() { return select(Selection::from_environment()); }

}  // namespace dualrt
