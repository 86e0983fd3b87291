/// @file
/// Kernel: a built-in or user kernel found by name, and the typed arguments a launch takes.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/types.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace dualrt {

namespace backend {
class KernelImpl;
}

/// What a backend reports for launching one kernel in 1-D work-groups of one size
/// (Kernel::occupancy). The kernel's own limits are known on both backends; how many work-groups
/// a compute unit holds at once is known on CUDA only (the driver's occupancy calculator), and
/// OpenCL has no query for it, so those fields are empty there rather than guessed.
struct KernelOccupancy {
    std::size_t group_size = 0;   ///< the work-group size asked about, in work-items
    std::size_t local_bytes = 0;  ///< the dynamic local memory asked about, per work-group
    /// The largest work-group this kernel can run on its device, in work-items: the device's
    /// limit or less where the kernel's registers or local memory allow less (CUDA
    /// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, OpenCL CL_KERNEL_WORK_GROUP_SIZE).
    std::size_t max_group_size = 0;
    /// Work-group sizes should be multiples of this, since the device runs work-items in groups
    /// of it (CUDA: the warp size; OpenCL: CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE).
    std::size_t preferred_multiple = 0;
    /// Local memory the kernel declares itself, per work-group, beside `local_bytes` (CUDA static
    /// `__shared__` arrays, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES; OpenCL CL_KERNEL_LOCAL_MEM_SIZE,
    /// read before any argument was set).
    std::size_t static_local_bytes = 0;
    /// Private memory per work-item that does not fit in registers (CUDA
    /// CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: stack and spills; OpenCL CL_KERNEL_PRIVATE_MEM_SIZE).
    std::size_t private_bytes = 0;
    /// Registers per work-item (CUDA CU_FUNC_ATTRIBUTE_NUM_REGS); empty on OpenCL.
    std::optional<std::size_t> registers_per_item;
    /// Work-groups of this size resident at once on one compute unit (CUDA:
    /// cuOccupancyMaxActiveBlocksPerMultiprocessor per SM; 0 when none fits); empty on OpenCL.
    std::optional<std::size_t> resident_groups;
    /// The most work-items one compute unit holds at once (CUDA
    /// CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR); empty on OpenCL.
    std::optional<std::size_t> max_resident_items;
    /// Resident work-items over max_resident_items, in [0, 1], counting each work-group in whole
    /// preferred multiples (warps), as the device schedules them; empty on OpenCL.
    std::optional<double> occupancy;
};

/// A kernel of one device, from Device::kernel("name"). Cheap to copy; thread-safe.
///
/// name(), param_count(), native_handle(), occupancy() and suggest_group_size() throw
/// Errc::invalid_argument on an empty Kernel.
class Kernel {
public:
    Kernel() = default;  ///< empty: valid() is false
    /// Wraps a backend kernel (internal: kernels come from Device::kernel).
    explicit Kernel(std::shared_ptr<backend::KernelImpl> impl);

    /// Whether this is a kernel of some device (false when default-constructed).
    bool valid() const noexcept { return impl_ != nullptr; }
    const std::string& name() const;  ///< the kernel's name, as in its source
    std::size_t param_count() const;   ///< the number of parameters the kernel declares
    NativeHandle native_handle() const;  ///< the native kernel (docs/guide.md, native_handle)

    /// What the backend reports for launching this kernel in 1-D work-groups of `group_size`
    /// work-items with `local_bytes` of dynamic local memory per work-group (the total of its
    /// dualrt::local_bytes arguments). See KernelOccupancy for what each backend knows.
    /// @throws Error Errc::invalid_argument when `group_size` is 0 or above the kernel's largest
    ///         work-group, or `local_bytes` above the device's local memory per work-group.
    KernelOccupancy occupancy(std::size_t group_size, std::size_t local_bytes = 0) const;
    /// A 1-D work-group size for this kernel with `local_bytes` of dynamic local memory per
    /// work-group: at least 1, at most the kernel's largest work-group. CUDA asks the driver
    /// (cuOccupancyMaxPotentialBlockSize: the size that keeps the most warps resident per SM).
    /// OpenCL cannot say what fits a compute unit, so it takes the largest multiple of the
    /// preferred multiple up to 256 work-items, capped by the kernel's limit. A starting point
    /// for a sweep, not a promise of the fastest size.
    /// @throws Error Errc::invalid_argument when `local_bytes`, or `local_bytes` together with
    ///         the kernel's static local memory, is above the device's local memory per
    ///         work-group (no size could run).
    std::size_t suggest_group_size(std::size_t local_bytes = 0) const;
    friend struct detail::BackendAccess;  // the library's own code reaches the backend object

private:
    std::shared_ptr<backend::KernelImpl> impl_;
};

/// Bytes of work-group local memory for a `__local T*` parameter (CUDA: dynamic shared memory).
struct LocalBytes {
    std::size_t bytes;  ///< the size of the local-memory argument, per work-group
};
/// The launch argument for a `__local T*` parameter (CUDA: a `dualrt_local<T>` parameter in
/// dynamic shared memory): `bytes` of local memory per work-group.
inline LocalBytes local_bytes(std::size_t bytes) { return LocalBytes{bytes}; }

/// One launch argument before checking: a buffer view, a local-memory size, or a scalar's bytes.
/// Queue::launch makes these from its arguments. It borrows: `buffer` and `value` point at the
/// launch call's own arguments, which live until the call returns, so building the list copies
/// nothing and allocates nothing.
struct KernelArgument {
    /// Which of the three an argument is.
    enum class Kind {
        buffer,  ///< a device buffer view: `buffer`
        local,   ///< work-group local memory: `local_bytes`
        scalar   ///< a value passed by value: `value_bytes` bytes at `value`
    };
    Kind kind = Kind::scalar;            ///< which members hold the argument
    const BufferView* buffer = nullptr;  ///< the view, for Kind::buffer
    std::size_t local_bytes = 0;         ///< the local-memory size, for Kind::local
    const void* value = nullptr;         ///< the scalar's bytes, for Kind::scalar
    std::size_t value_bytes = 0;         ///< the scalar's size, for Kind::scalar
};

namespace detail {

template <typename A>
KernelArgument make_argument(const A& arg) {
    KernelArgument out;
    if constexpr (std::is_base_of_v<BufferView, A>) {
        out.kind = KernelArgument::Kind::buffer;
        out.buffer = &arg;
    } else if constexpr (std::is_same_v<A, LocalBytes>) {
        out.kind = KernelArgument::Kind::local;
        out.local_bytes = arg.bytes;
    } else {
        static_assert(std::is_trivially_copyable_v<A> && !std::is_pointer_v<A>,
                      "a kernel argument is a Buffer<T>, dualrt::local_bytes(n), or a "
                      "trivially copyable scalar (host pointers are not allowed)");
        out.kind = KernelArgument::Kind::scalar;
        out.value = &arg;
        out.value_bytes = sizeof(A);
    }
    return out;
}

}  // namespace detail
}  // namespace dualrt
