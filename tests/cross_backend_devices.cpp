// One GPU seen through two backends (CUDA and NVIDIA's OpenCL) must be described the same way:
// dualrt-info shows both, and users compare them.
#include "cross_backend.hpp"

#include <map>

namespace {

// The devices under test that report a PCI address, grouped by it.
std::map<std::string, std::vector<const cross::Target*>> by_pci_address() {
    std::map<std::string, std::vector<const cross::Target*>> groups;
    for (const cross::Target& target : cross::targets()) {
        const auto& address = target.device.info().pci_bus_id;
        if (address) groups[*address].push_back(&target);
    }
    return groups;
}

}  // namespace

TEST_CASE("cross-backend: one GPU reports the same properties on every backend") {
    std::size_t compared = 0;
    for (const auto& [address, group] : by_pci_address()) {
        const dualrt::DeviceInfo& first = group.front()->device.info();
        for (std::size_t i = 1; i < group.size(); ++i) {
            const dualrt::DeviceInfo& other = group[i]->device.info();
            INFO("PCI " << address << ": " << group.front()->label << " vs " << group[i]->label);
            CHECK(other.name == first.name);
            CHECK(other.vendor == first.vendor);
            CHECK(other.type == first.type);
            CHECK(other.global_memory_bytes == first.global_memory_bytes);
            CHECK(other.local_memory_bytes == first.local_memory_bytes);
            CHECK(other.compute_units == first.compute_units);
            CHECK(other.max_work_group_size == first.max_work_group_size);
            CHECK(other.max_work_item_sizes == first.max_work_item_sizes);
            ++compared;
        }
    }
    MESSAGE("devices compared by PCI address: " << compared);
}
