/// @file
/// Small value types shared by the public API.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace dualrt {

namespace detail {
// The library's own way to the backend object behind a public object (internal, not installed):
// a friend of every class that holds one.
struct BackendAccess;
}  // namespace detail

/// The GPU programming interface a device is driven through.
enum class Backend {
    cuda,    ///< the CUDA driver API (libdualrt_cuda.so)
    opencl   ///< OpenCL (libdualrt_opencl.so)
};

/// The backend's name as DUALRT_BACKEND spells it: "cuda" or "opencl".
const char* to_string(Backend backend) noexcept;

/// A CUDA or OpenCL handle (a stream, a buffer, a device pointer, ...) as an opaque integer, for
/// interop with vendor libraries. Cast it back with reinterpret_cast / a C-style cast on the vendor
/// side.
using NativeHandle = std::uintptr_t;

/// Whether a queue operation returns as soon as it is enqueued, or after it has completed.
enum class Sync {
    async,     ///< return once the work is enqueued (the default)
    blocking   ///< return after the work has completed
};

/// A 1-, 2- or 3-D extent with OpenCL meaning: as a global range it is the total number of
/// work-items per dimension; as a local range, the work-group size. A default-constructed Range
/// (dims() == 0) as the local range asks the library to choose the work-group size.
class Range {
public:
    Range() = default;  ///< no extent: dims() == 0 ("let the library choose" as a local range)
    /// A 1-D extent of `x`. Implicit, so `{n}` reads well as an argument.
    Range(std::size_t x) : extent_{x, 1, 1}, dims_(1) {}  // NOLINT: implicit so `{n}` reads well
    /// A 2-D extent of `x` by `y`.
    Range(std::size_t x, std::size_t y) : extent_{x, y, 1}, dims_(2) {}
    /// A 3-D extent of `x` by `y` by `z`.
    Range(std::size_t x, std::size_t y, std::size_t z) : extent_{x, y, z}, dims_(3) {}

    /// The number of dimensions given: 0 (default-constructed), 1, 2 or 3.
    int dims() const noexcept { return dims_; }
    /// The extent along `axis` (0, 1 or 2; 1 for an axis beyond dims()).
    /// @throws std::out_of_range for an axis outside 0 to 2.
    std::size_t operator[](int axis) const { return extent_.at(static_cast<std::size_t>(axis)); }
    /// The product of the three extents.
    std::size_t total() const noexcept { return extent_[0] * extent_[1] * extent_[2]; }
    std::string str() const;  ///< "1024x768" ("auto" when dims() == 0)

private:
    std::array<std::size_t, 3> extent_{1, 1, 1};
    int dims_ = 0;
};

/// The kind of a device, as the backend reports it.
enum class DeviceType {
    gpu,          ///< a GPU (every CUDA device)
    cpu,          ///< a CPU device, such as PoCL's
    accelerator,  ///< an OpenCL accelerator
    other         ///< anything else
};

/// The type's name: "GPU", "CPU", "accelerator" or "other".
const char* to_string(DeviceType type) noexcept;

/// How a device records commands and replays them (Queue::begin_recording, recording.hpp).
enum class RecordingPath {
    none,            ///< the device cannot record
    graph,           ///< CUDA graphs: a replay is one graph launch
    command_buffer,  ///< OpenCL command buffers: a replay is one command-buffer enqueue
    /// dualrt's own list of prepared commands (OpenCL devices without command buffers): each
    /// replayed command is one driver call, its checks, lookups and kernel arguments done when
    /// it was recorded
    command_list
};
/// The path in words: "none", "graph", "command buffer" or "command list".
const char* to_string(RecordingPath path) noexcept;

/// What a backend can tell about a device. Fields a backend cannot determine are empty optionals.
struct DeviceInfo {
    Backend backend = Backend::opencl;  ///< the backend the device belongs to
    int index = 0;                    ///< position in dualrt::devices(backend)
    std::string name;                 ///< the device's name, as the driver reports it
    std::string vendor;               ///< the device's vendor
    std::string platform;             ///< OpenCL platform name; "CUDA" on the CUDA backend
    std::string driver_version;       ///< the driver's version string
    std::string architecture;         ///< e.g. "sm_90" or the OpenCL device version string
    DeviceType type = DeviceType::other;     ///< GPU, CPU, accelerator or other
    std::uint64_t global_memory_bytes = 0;   ///< device (global) memory
    std::uint64_t local_memory_bytes = 0;  ///< per work-group (shared memory per block)
    std::uint32_t compute_units = 0;       ///< compute units (CUDA: multiprocessors)
    std::size_t max_work_group_size = 0;   ///< the largest work-group (block), in work-items
    /// The largest work-group extent per dimension.
    std::array<std::size_t, 3> max_work_item_sizes{0, 0, 0};
    std::optional<int> copy_engines;       ///< DMA engines able to run beside compute
    std::optional<std::string> pci_bus_id;  ///< the PCI bus id, where the backend tells it
    /// Whether the device was made by dualrt::wrap_device around an application's context
    /// (interop.hpp), apart from the device of the same `index` that dualrt::devices() lists.
    bool wrapped_context = false;
    /// How this device records and replays commands (RecordingPath); the environment variable
    /// DUALRT_RECORDING=command_list makes OpenCL devices take the command list.
    RecordingPath recording = RecordingPath::none;

    /// @name Zero-copy
    /// Device::alloc_mapped, docs/zero-copy.md.
    /// @{

    /// The device works in the host's own memory: an integrated GPU (CUDA
    /// CU_DEVICE_ATTRIBUTE_INTEGRATED, OpenCL CL_DEVICE_HOST_UNIFIED_MEMORY) or a CPU device.
    bool shares_host_memory = false;
    /// Kernels can read and write mapped host memory, so Device::alloc_mapped works (CUDA
    /// CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY; every OpenCL device).
    bool can_map_host_memory = false;

    /// Whether mapped memory is the better home for data that kernels use: where the device shares
    /// the host's memory, mapped memory is as close to it as any, and every copy saved is time
    /// saved. On a discrete GPU, kernels reach mapped memory over the bus (PCIe) at a fraction of
    /// device-memory bandwidth: zero-copy pays there only for data read or written once, in
    /// coalesced accesses, where it saves the copy and overlaps the transfer with the kernel.
    bool zero_copy_worthwhile() const noexcept { return can_map_host_memory && shares_host_memory; }
    /// @}
};

}  // namespace dualrt
