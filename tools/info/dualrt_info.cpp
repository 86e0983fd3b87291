// dualrt-info: which backends this machine has (and why any is missing), every device with its
// properties, and the device DUALRT_BACKEND / DUALRT_DEVICE (or --backend / --device) select.
// Exits 1 when that selection cannot be honoured, with the reason. --json prints the same as one
// JSON document (info_json.hpp has its keys).
#include <dualrt/dualrt.hpp>

#include "options.hpp"
#include "info_json.hpp"
#include "table.hpp"

#include <cstdio>
#include <iostream>
#include <string>

namespace {

std::string gib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
    return text;
}

std::string kib(std::uint64_t bytes) { return std::to_string(bytes / 1024) + " KiB"; }

// Whether kernels can work in host memory without copies, and whether that is a good idea here.
std::string zero_copy(const dualrt::DeviceInfo& info) {
    if (!info.can_map_host_memory) return "unavailable (the device cannot map host memory)";
    if (info.zero_copy_worthwhile())
        return "worthwhile (the device works in the host's memory: copies only cost time)";
    return "available; pays only for data read or written once (kernels reach host memory over "
           "the bus)";
}

void print_backends() {
    dualrt::samples::Table table({"backend", "status", "details"});
    for (const auto& status : dualrt::backends()) {
        table.add({dualrt::to_string(status.backend),
                   status.available ? "available" : "unavailable",
                   status.available ? status.version + " (" + status.module_path + ")"
                                    : status.reason});
    }
    table.print(std::cout);
}

void print_devices() {
    const auto devices = dualrt::devices();
    dualrt::samples::Table table({"#", "backend", "type", "name", "memory", "CUs", "max WG",
                                  "local mem", "copy engines"});
    for (const auto& device : devices) {
        const auto& i = device.info();
        table.add({std::to_string(i.index), dualrt::to_string(i.backend),
                   dualrt::to_string(i.type), i.name, gib(i.global_memory_bytes),
                   std::to_string(i.compute_units), std::to_string(i.max_work_group_size),
                   kib(i.local_memory_bytes),
                   i.copy_engines ? std::to_string(*i.copy_engines) : "unknown"});
    }
    table.print(std::cout);
    for (const auto& device : devices) {
        const auto& i = device.info();
        std::cout << "\n" << dualrt::to_string(i.backend) << " " << i.index << ": " << i.name
                  << "\n  vendor        " << i.vendor << "\n  platform      " << i.platform
                  << "\n  driver        " << i.driver_version << "\n  architecture  "
                  << i.architecture << "\n  work-items    " << i.max_work_item_sizes[0] << " x "
                  << i.max_work_item_sizes[1] << " x " << i.max_work_item_sizes[2]
                  << "\n  PCI bus       " << i.pci_bus_id.value_or("unknown")
                  << "\n  host memory   "
                  << (i.shares_host_memory ? "shared with the device" : "separate from the device")
                  << "\n  zero-copy     " << zero_copy(i)
                  << "\n  recording     " << dualrt::to_string(i.recording) << "\n";
    }
}

// Which pairs copy device to device; every other pair is staged through pinned host memory.
void print_peer_access() {
    const auto devices = dualrt::devices();
    std::cout << "\nPeer access (copies between two devices' buffers)\n";
    bool any = false;
    for (std::size_t a = 0; a < devices.size(); ++a)
        for (std::size_t b = a + 1; b < devices.size(); ++b) {
            if (!devices[a].peer_access(devices[b])) continue;
            any = true;
            std::cout << "  " << dualrt::to_string(devices[a].backend()) << " "
                      << devices[a].info().index << " <-> " << devices[b].info().index
                      << ": device to device\n";
        }
    if (devices.size() < 2)
        std::cout << "  one device: nothing to pair\n";
    else if (!any)
        std::cout << "  none: copies between devices go through pinned host memory\n";
    else
        std::cout << "  every other pair: through pinned host memory\n";
}

}  // namespace

int main(int argc, char** argv) {
    // No --csv (there are no rows to write) and no progress flags (nothing here takes long).
    dualrt::samples::SharedOptions shared;
    shared.csv = false;
    shared.progress = false;
    dualrt::samples::Args args(
        "dualrt-info",
        std::string("Lists dualrt's backends (and why any is unavailable), every device with its "
                    "properties, and\nthe device that ") +
            dualrt::env_backend + " (auto|cuda|opencl) and " + dualrt::env_device +
            " (index or name) select.\nExits 1 when that selection fails; --json then still "
            "prints the document, with \"error\" set.",
        shared);
    args.add_flag("json", "print the same as one JSON document on stdout");
    if (const auto exit_code = args.parse(argc, argv)) return *exit_code;
    const dualrt::Selection selection = args.selection();
    if (args.flag("json")) return dualrt::samples::info::write_json(std::cout, selection) ? 0 : 1;
    try {
        std::cout << "dualrt " << dualrt::version_string() << "\n\nBackends\n";
        print_backends();
        std::cout << "\nDevices\n";
        print_devices();
        print_peer_access();
        const auto chosen = dualrt::select(selection);
        std::cout << "\nSelected: " << dualrt::to_string(chosen.backend()) << " device "
                  << chosen.info().index << " '" << chosen.name() << "'\n";
        return 0;
    } catch (const dualrt::Error& e) {
        std::cerr << "\nerror: " << e.what() << "\n";
        return 1;
    }
}
