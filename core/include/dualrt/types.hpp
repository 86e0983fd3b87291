// Small value types shared by the public API.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace dualrt {

enum class Backend { cuda, opencl };

const char* to_string(Backend backend) noexcept;

// A CUDA or OpenCL handle (CUstream, cl_mem, CUdeviceptr, ...) as an opaque integer, for interop
// with vendor libraries. Cast it back with reinterpret_cast / a C-style cast on the vendor side.
using NativeHandle = std::uintptr_t;

// Whether a queue operation returns as soon as it is enqueued, or after it has completed.
enum class Sync { async, blocking };

// A 1-, 2- or 3-D extent with OpenCL meaning: as a global range it is the total number of
// work-items per dimension; as a local range, the work-group size. A default-constructed Range
// (dims() == 0) as the local range asks the library to choose the work-group size.
class Range {
public:
    Range() = default;
    Range(std::size_t x) : extent_{x, 1, 1}, dims_(1) {}  // NOLINT: implicit so `{n}` reads well
    Range(std::size_t x, std::size_t y) : extent_{x, y, 1}, dims_(2) {}
    Range(std::size_t x, std::size_t y, std::size_t z) : extent_{x, y, z}, dims_(3) {}

    int dims() const noexcept { return dims_; }
    std::size_t operator[](int axis) const { return extent_.at(static_cast<std::size_t>(axis)); }
    std::size_t total() const noexcept { return extent_[0] * extent_[1] * extent_[2]; }
    std::string str() const;  // "1024x768"

private:
    std::array<std::size_t, 3> extent_{1, 1, 1};
    int dims_ = 0;
};

enum class DeviceType { gpu, cpu, accelerator, other };

const char* to_string(DeviceType type) noexcept;

// What a backend can tell about a device. Fields a backend cannot determine are empty optionals.
struct DeviceInfo {
    Backend backend = Backend::opencl;
    int index = 0;                    // position in dualrt::devices(backend)
    std::string name;
    std::string vendor;
    std::string platform;             // OpenCL platform name; "CUDA" on the CUDA backend
    std::string driver_version;
    std::string architecture;         // e.g. "sm_90" or the OpenCL device version string
    DeviceType type = DeviceType::other;
    std::uint64_t global_memory_bytes = 0;
    std::uint64_t local_memory_bytes = 0;  // per work-group (shared memory per block)
    std::uint32_t compute_units = 0;
    std::size_t max_work_group_size = 0;
    std::array<std::size_t, 3> max_work_item_sizes{0, 0, 0};
    std::optional<int> copy_engines;       // DMA engines able to run beside compute
    std::optional<std::string> pci_bus_id;
};

}  // namespace dualrt
