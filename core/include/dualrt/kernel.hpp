/// @file
/// Kernel: a built-in or user kernel found by name, and the typed arguments a launch takes.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/types.hpp>

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dualrt {

namespace backend {
class KernelImpl;
}

/// A kernel of one device, from Device::kernel("name"). Cheap to copy; thread-safe.
///
/// name(), param_count() and native_handle() throw Errc::invalid_argument on an empty Kernel.
class Kernel {
public:
    Kernel() = default;  ///< empty: valid() is false
    /// Wraps a backend kernel (internal: kernels come from Device::kernel).
    explicit Kernel(std::shared_ptr<backend::KernelImpl> impl);

    /// Whether this is a kernel of some device (false when default-constructed).
    bool valid() const noexcept { return impl_ != nullptr; }
    const std::string& name() const;  ///< the kernel's name, as in its source
    std::size_t param_count() const;   ///< the number of parameters the kernel declares
    NativeHandle native_handle() const;  ///< cl_kernel / CUfunction
    /// The backend object (internal; for the library's own code).
    const std::shared_ptr<backend::KernelImpl>& impl() const noexcept { return impl_; }

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
/// Queue::launch makes these from its arguments.
struct KernelArgument {
    /// Which of the three an argument is.
    enum class Kind {
        buffer,  ///< a device buffer view: `buffer`
        local,   ///< work-group local memory: `local_bytes`
        scalar   ///< a value passed by value: its bytes in `value`
    };
    Kind kind = Kind::scalar;          ///< which member holds the argument
    BufferView buffer;                 ///< the view, for Kind::buffer
    std::size_t local_bytes = 0;       ///< the local-memory size, for Kind::local
    std::vector<unsigned char> value;  ///< the scalar's bytes, for Kind::scalar
};

namespace detail {

template <typename A>
KernelArgument make_argument(const A& arg) {
    KernelArgument out;
    if constexpr (std::is_base_of_v<BufferView, A>) {
        out.kind = KernelArgument::Kind::buffer;
        out.buffer = arg;
    } else if constexpr (std::is_same_v<A, LocalBytes>) {
        out.kind = KernelArgument::Kind::local;
        out.local_bytes = arg.bytes;
    } else {
        static_assert(std::is_trivially_copyable_v<A> && !std::is_pointer_v<A>,
                      "a kernel argument is a Buffer<T>, dualrt::local_bytes(n), or a "
                      "trivially copyable scalar (host pointers are not allowed)");
        out.kind = KernelArgument::Kind::scalar;
        out.value.resize(sizeof(A));
        std::memcpy(out.value.data(), &arg, sizeof(A));
    }
    return out;
}

}  // namespace detail
}  // namespace dualrt
