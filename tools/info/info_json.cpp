#include "info_json.hpp"

#include <dualrt/dualrt.hpp>

#include <nlohmann/json.hpp>

#include <exception>
#include <string>

namespace dualrt::samples::info {
namespace {

// Keys in the documented order rather than sorted.
using json = nlohmann::ordered_json;

// The JSON's own names: lower case whatever to_string(DeviceType) shows people.
const char* type_name(DeviceType type) {
    switch (type) {
    case DeviceType::gpu: return "gpu";
    case DeviceType::cpu: return "cpu";
    case DeviceType::accelerator: return "accelerator";
    case DeviceType::other: return "other";
    }
    return "other";
}

json backend_json(const BackendStatus& status) {
    return {{"name", to_string(status.backend)},
            {"available", status.available},
            {"reason", status.reason},
            {"module_path", status.module_path},
            {"version", status.version},
            {"device_count", status.device_count}};
}

json device_json(const DeviceInfo& i) {
    return {{"backend", to_string(i.backend)},
            {"index", i.index},
            {"name", i.name},
            {"vendor", i.vendor},
            {"platform", i.platform},
            {"driver_version", i.driver_version},
            {"architecture", i.architecture},
            {"type", type_name(i.type)},
            {"global_memory_bytes", i.global_memory_bytes},
            {"local_memory_bytes", i.local_memory_bytes},
            {"compute_units", i.compute_units},
            {"max_work_group_size", i.max_work_group_size},
            {"max_work_item_sizes", i.max_work_item_sizes},
            {"copy_engines", i.copy_engines ? json(*i.copy_engines) : json(nullptr)},
            {"pci_bus_id", i.pci_bus_id ? json(*i.pci_bus_id) : json(nullptr)},
            {"shares_host_memory", i.shares_host_memory},
            {"can_map_host_memory", i.can_map_host_memory},
            {"zero_copy_worthwhile", i.zero_copy_worthwhile()},
            {"recording", dualrt::to_string(i.recording)}};
}

json error_json(const std::string& errc, const std::string& message) {
    return {{"errc", errc}, {"message", message}};
}

}  // namespace

bool write_json(std::ostream& out, const Selection& selection) {
    json doc = {{"format_version", 1},
                {"dualrt_version", version_string()},
                {"backends", json::array()},
                {"devices", json::array()},
                {"peer_access", json::array()},
                {"selection",
                 {{"asked", {{"backend", selection.backend}, {"device", selection.device}}},
                  {"selected", nullptr}}},
                {"error", nullptr}};
    try {
        for (const auto& status : backends()) doc["backends"].push_back(backend_json(status));
        const auto all = devices();
        for (const auto& device : all) doc["devices"].push_back(device_json(device.info()));
        for (std::size_t a = 0; a < all.size(); ++a)
            for (std::size_t b = a + 1; b < all.size(); ++b)
                if (all[a].peer_access(all[b]))
                    doc["peer_access"].push_back({{"backend", to_string(all[a].backend())},
                                                  {"a", all[a].info().index},
                                                  {"b", all[b].info().index}});
        const Device chosen = select(selection);
        doc["selection"]["selected"] = {{"backend", to_string(chosen.backend())},
                                        {"index", chosen.info().index},
                                        {"name", chosen.name()}};
    } catch (const Error& e) {
        doc["error"] = error_json(to_string(e.errc()), e.what());
    } catch (const std::exception& e) {
        doc["error"] = error_json("other", e.what());
    }
    // Driver strings are not always valid UTF-8: replace what is not rather than fail.
    out << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
    return doc["error"].is_null();
}

}  // namespace dualrt::samples::info
