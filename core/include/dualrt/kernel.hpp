// Kernel: a built-in or user kernel found by name, and the typed arguments a launch takes.
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

// A kernel of one device, from Device::kernel("name"). Cheap to copy; thread-safe.
class Kernel {
public:
    Kernel() = default;
    explicit Kernel(std::shared_ptr<backend::KernelImpl> impl);

    bool valid() const noexcept { return impl_ != nullptr; }
    const std::string& name() const;
    std::size_t param_count() const;
    NativeHandle native_handle() const;  // cl_kernel / CUfunction
    const std::shared_ptr<backend::KernelImpl>& impl() const noexcept { return impl_; }

private:
    std::shared_ptr<backend::KernelImpl> impl_;
};

// Bytes of work-group local memory for a `__local T*` parameter (CUDA: dynamic shared memory).
struct LocalBytes {
    std::size_t bytes;
};
inline LocalBytes local_bytes(std::size_t bytes) { return LocalBytes{bytes}; }

// One launch argument before checking: a buffer view, a local-memory size, or a scalar's bytes.
struct KernelArgument {
    enum class Kind { buffer, local, scalar };
    Kind kind = Kind::scalar;
    BufferView buffer;
    std::size_t local_bytes = 0;
    std::vector<unsigned char> value;
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
