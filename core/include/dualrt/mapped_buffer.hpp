/// @file
/// MappedBuffer<T>: host memory that kernels read and write in place ("zero-copy"), and
/// HostAccess<T>: the host's turn with it.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/types.hpp>

#include <cstddef>
#include <memory>
#include <type_traits>

namespace dualrt {

namespace backend {
class MappedBufferImpl;
}
class Queue;
template <typename T>
class MappedBuffer;

/// The type-free part of a HostAccess: one turn of the host with a mapped buffer. Move-only; the
/// turn ends (the memory goes back to the device) at release() or destruction.
class HostAccessBase {
public:
    HostAccessBase() = default;  ///< holds nothing: active() is false
    /// Takes the other's turn; the other holds none afterwards.
    HostAccessBase(HostAccessBase&&) noexcept = default;
    /// Ends this object's own turn first (as the destructor does), then takes other's.
    HostAccessBase& operator=(HostAccessBase&&) noexcept = default;
    ~HostAccessBase() = default;  ///< ends the turn; logs a failure instead of throwing

    /// Whether this object holds the host's turn now.
    bool active() const noexcept { return turn_ != nullptr; }
    /// Ends the turn now: the memory goes back to the device, and host writes made before are seen
    /// by every command enqueued afterwards, on any queue. Blocks (OpenCL: until the unmap is
    /// done). Throws dualrt::Error when the backend fails; the turn is over either way. Does
    /// nothing when the object holds no turn (any more).
    void release();

protected:
    /// What HostAccess<T> reads its pointer and size from. Out of line, as Turn is internal.
    void* turn_data() const noexcept;
    std::size_t turn_bytes() const noexcept;  ///< the length of the turn's span in bytes

private:
    friend class MappedBufferBase;
    struct Turn;  // the buffer, the queue and the host span (defined in mapped_buffer.cpp)
    struct End {  // ends the turn, never throws: the deleter the compiler's moves rely on
        void operator()(Turn* turn) const noexcept;
    };
    explicit HostAccessBase(std::unique_ptr<Turn, End> turn) : turn_(std::move(turn)) {}

    std::unique_ptr<Turn, End> turn_;
};

/// The host's turn with a MappedBuffer<T>, from MappedBuffer<T>::host(queue): a span of size()
/// elements at data(). The pointer is valid only while this object holds the turn: it may differ
/// from one turn to the next (OpenCL maps anew each time), so never keep it past release() or
/// destruction. After either, data() is nullptr and size() is 0. Not thread-safe (like a span).
template <typename T>
class HostAccess : public HostAccessBase {
public:
    using value_type = T;  ///< the element type
    HostAccess() = default;  ///< holds no turn: active() is false, data() nullptr, size() 0

    /// The first element, for the host while the turn lasts (nullptr without a turn).
    T* data() const noexcept { return static_cast<T*>(turn_data()); }
    std::size_t size() const noexcept { return turn_bytes() / sizeof(T); }  ///< elements
    std::size_t bytes() const noexcept { return turn_bytes(); }  ///< size() * sizeof(T)
    T& operator[](std::size_t i) const noexcept { return data()[i]; }  ///< unchecked, like a span
    T* begin() const noexcept { return data(); }          ///< data()
    T* end() const noexcept { return data() + size(); }   ///< data() + size()

private:
    friend class MappedBuffer<T>;  // the only maker: the turn's memory holds Ts
    explicit HostAccess(HostAccessBase&& base) : HostAccessBase(std::move(base)) {}
};

/// The type-free part of a MappedBuffer. Cheap to copy (shared ownership). Thread-safe.
class MappedBufferBase {
public:
    /// Whether this holds mapped memory (false when default-constructed).
    bool valid() const noexcept { return impl_ != nullptr; }
    std::size_t bytes() const;  ///< 0 when empty
    /// Whether a HostAccess of this memory is alive now (a snapshot: another thread may change it).
    bool host_held() const;
    NativeHandle native_handle() const;  ///< OpenCL: the buffer; CUDA: the host (== device) pointer
    friend struct detail::BackendAccess;  // the library's own code reaches the backend object

protected:
    MappedBufferBase() = default;  ///< empty: valid() is false
    /// Wraps backend memory (internal: made by Device::alloc_mapped).
    explicit MappedBufferBase(std::shared_ptr<backend::MappedBufferImpl> impl);
    BufferView device_bytes() const;         ///< the whole memory as a device buffer
    HostAccessBase host_turn(Queue& queue) const;  ///< what MappedBuffer<T>::host does, untyped

private:
    std::shared_ptr<backend::MappedBufferImpl> impl_;
};

/// Host memory holding size() elements of T that the kernels of one device read and write in
/// place, with no copy ("zero-copy"): CUDA mapped pinned memory, an OpenCL CL_MEM_ALLOC_HOST_PTR
/// buffer. Create with Device::alloc_mapped<T>(n); contents start undefined. Copies share the
/// memory; it is freed when the last MappedBuffer, device_view() Buffer and HostAccess of it are
/// gone.
///
/// The memory belongs to the device or to the host in turn:
/// - **device** (at creation, and after each host turn): device_view() is an ordinary `Buffer<T>`
///   of the device: a kernel argument, a copy source or destination, a fill target, with views of
///   part of it, on every queue of the device. The host must not touch the memory.
/// - **host** (while a HostAccess from host(queue) is alive): the host reads and writes it through
///   the HostAccess. Enqueueing any command that uses device_view() throws Errc::invalid_argument.
///
/// @code{.cpp}
/// dualrt::Queue q = device.create_queue();
/// auto x = device.alloc_mapped<float>(n);      // and y, filled the same way
/// {
///     auto host = x.host(q);                   // the host's turn
///     std::copy(input.begin(), input.end(), host.begin());
/// }                                            // back to the device
/// q.launch(device.kernel("saxpy"), {n}, {}, n, a, x.device_view(), y.device_view());
/// auto result = y.host(q);                     // waits for the kernel, then reads y
/// @endcode
///
/// host(queue) first waits for the work enqueued on `queue` so far (like Queue::finish), so that
/// what kernels wrote is there to read. Work on other queues that uses the memory must have
/// completed, or `queue` must wait for it first (queue.wait(event)). Ending the turn makes host
/// writes visible to every command enqueued afterwards, on any queue.
///
/// Why turns: OpenCL lets no command use a buffer while it is mapped for the host, and guarantees
/// host writes to the device only at unmap, device writes to the host only at map. dualrt maps in
/// host() (a blocking map on `queue`) and unmaps when the turn ends (enqueued on the same queue,
/// then waited for). On CUDA the memory is always visible to both, and a turn costs only the wait
/// for `queue` and two flag stores; the rules are the same there so that a program correct on one
/// backend is correct on the other.
///
/// When it pays: DeviceInfo::zero_copy_worthwhile() and docs/zero-copy.md. Thread-safety: the
/// object is thread-safe; one HostAccess at a time (host() while one is alive throws
/// Errc::invalid_argument); the contents are plain memory.
/// @tparam T a trivially copyable element type
template <typename T>
class MappedBuffer : public MappedBufferBase {
    static_assert(std::is_trivially_copyable_v<T>, "MappedBuffer<T> needs a trivially copyable T");

public:
    using value_type = T;  ///< the element type
    MappedBuffer() = default;  ///< empty: valid() is false
    /// Wraps backend memory (internal: made by Device::alloc_mapped).
    explicit MappedBuffer(std::shared_ptr<backend::MappedBufferImpl> impl)
        : MappedBufferBase(std::move(impl)) {}

    std::size_t size() const { return bytes() / sizeof(T); }  ///< elements (0 when empty)

    /// The memory as a device buffer. Cheap; every call views the same memory. Throws
    /// Errc::invalid_argument when the MappedBuffer is empty.
    Buffer<T> device_view() const { return Buffer<T>(device_bytes()); }

    /// The host's turn: blocks until the work enqueued on `queue` so far has completed (and, on
    /// OpenCL, the memory is mapped), then returns the host's span of it. Throws
    /// Errc::invalid_argument when this or `queue` is empty, when `queue` runs on another device,
    /// or when a HostAccess of this memory is already alive.
    HostAccess<T> host(Queue& queue) const { return HostAccess<T>(host_turn(queue)); }
};

}  // namespace dualrt
