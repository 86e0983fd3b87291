// The backend interface: one small abstract class per object kind. Internal to dualrt (not
// installed). The core validates every argument before a backend sees it, so implementations may
// assume in-range offsets, matching devices and well-formed kernel arguments.
//
// Ownership: the public types hold std::shared_ptr to these objects. Every child object (buffer,
// queue, event, kernel) holds a shared_ptr to its DeviceImpl, so a device outlives its children.
// Thread-safety: unless a comment says otherwise, every method may be called from any thread.
//
// The public API needs every method here but four, which the Pipeline alone calls, because it
// times and paces chunks finer than the public Queue offers (backend_access.hpp is its door):
// QueueImpl::times_commands with begin_timed_span / end_timed_span time a stage from its own
// commands where a timed marker would wait for the whole context (NVIDIA's OpenCL), and
// QueueImpl::submit starts a lane's work that nothing waits on yet (OpenCL holds commands until
// a flush). Each has a default, so a backend that needs neither implements neither.
#pragma once

#include <dualrt/interop.hpp>
#include <dualrt/kernel.hpp>
#include <dualrt/types.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dualrt::detail {
class LaunchJournal;  // the launches in flight on one device (launch_journal.hpp)
struct LaunchJournalDeleter {
    void operator()(LaunchJournal* journal) const noexcept;
};
class QueueRecording;  // a queue's part in a recording under way (runtime/queue_recording.hpp)
struct QueueRecordingDeleter {
    void operator()(QueueRecording* recording) const noexcept;
};
using QueueRecordingPtr = std::unique_ptr<QueueRecording, QueueRecordingDeleter>;
}  // namespace dualrt::detail

namespace dualrt::backend {

// Bumped whenever any class below changes layout or meaning (the history is in git). A module
// built against another version is refused by the registry instead of crashing.
inline constexpr int api_version = 14;

class DeviceImpl;
class BufferImpl;
class HostBufferImpl;
class MappedBufferImpl;
class QueueImpl;
class EventImpl;
class KernelImpl;

using EventPtr = std::shared_ptr<EventImpl>;

// A point in a queue: recorded by every enqueue, waited on by the host or by other queues.
class EventImpl {
public:
    virtual ~EventImpl() = default;
    virtual const DeviceImpl& device() const = 0;  // the owner, for same-device checks
    virtual void wait() = 0;                // blocks the host until the point is reached
    virtual bool is_complete() = 0;         // never blocks
    // Whether the event carries a device timestamp: true for QueueImpl::record(), false for the
    // events of copies, fills and launches (CUDA records those without timing, which is cheaper;
    // OpenCL marks them untimed too so that both backends accept the same programs).
    virtual bool timed() const = 0;
    // Milliseconds of device time from `start` to this event; both are timed, complete and belong
    // to the same device (checked by the core).
    virtual double elapsed_ms_since(EventImpl& start) = 0;
    virtual NativeHandle native_handle() const = 0;
};

// A device allocation of bytes() bytes. Views (offset, length) are handled by the core; the
// backend sees the whole allocation plus byte offsets.
class BufferImpl {
public:
    virtual ~BufferImpl() = default;
    virtual const DeviceImpl& device() const = 0;  // the owner, for same-device checks
    virtual std::size_t bytes() const = 0;
    virtual NativeHandle native_handle() const = 0;  // cl_mem / CUdeviceptr
};

// Page-locked host memory, mapped for the host for its whole lifetime.
class HostBufferImpl {
public:
    virtual ~HostBufferImpl() = default;
    virtual const DeviceImpl& device() const = 0;  // the owner, for same-device checks
    virtual void* data() = 0;
    virtual std::size_t bytes() const = 0;
    virtual NativeHandle native_handle() const = 0;  // cl_mem / host pointer
};

// Host memory that kernels of its device read and write in place ("zero-copy"): CUDA mapped
// pinned memory, an OpenCL CL_MEM_ALLOC_HOST_PTR buffer. The memory belongs to the device or to
// the host in turn. It starts with the device: device_buffer() may be used in any command. Between
// begin_host_access and end_host_access it belongs to the host, and every command that uses
// device_buffer() throws Errc::invalid_argument (OpenCL forbids commands on a mapped buffer; CUDA
// keeps the same rule so that programs behave alike on both backends).
// The core pairs the calls: end_host_access follows a successful begin_host_access exactly once,
// with the same queue, which the core keeps alive in between.
class MappedBufferImpl {
public:
    virtual ~MappedBufferImpl() = default;
    virtual const DeviceImpl& device() const = 0;  // the owner, for same-device checks
    virtual std::size_t bytes() const = 0;
    // The memory as a device buffer, for kernel arguments and copies: the same object on every
    // call. It keeps the memory alive on its own (a view may outlive this object).
    virtual std::shared_ptr<BufferImpl> device_buffer() const = 0;
    // Whether the host holds the memory now. A snapshot, for messages.
    virtual bool host_held() const = 0;
    // Gives the memory to the host once the work enqueued on `queue` (of device(), checked by the
    // core) so far has completed, so that the host sees what kernels wrote. Blocks. Returns the
    // host address, valid until end_host_access (it may differ from one call to the next), or
    // nullptr, doing nothing, when the host already holds the memory: the core reports that; the
    // backend's atomic claim only keeps two racing threads apart.
    virtual void* begin_host_access(QueueImpl& queue) = 0;
    // Gives the memory back to the device: host writes made before the call are seen by every
    // command enqueued after it returns, on any queue. Blocks (OpenCL: until the unmap, enqueued
    // on `queue`, has completed). The memory belongs to the device afterwards even when this
    // throws: a failed unmap leaves nothing that a retry could repair.
    virtual void end_host_access(QueueImpl& queue) = 0;
    virtual NativeHandle native_handle() const = 0;  // cl_mem / the host pointer
};

// What the backend knows of one kernel parameter, for the core's pre-launch checks.
struct ParamInfo {
    enum class Kind { buffer, local, scalar, unknown };
    Kind kind = Kind::unknown;
    std::size_t size = 0;    // bytes of a scalar; 0 where unknown
    std::string type_name;   // as declared, for messages ("float*", "uint"); may be empty
    std::string name;        // parameter name where the backend knows it; may be empty
};

class KernelImpl {
public:
    virtual ~KernelImpl() = default;
    virtual const DeviceImpl& device() const = 0;  // the owner, for same-device checks
    virtual const std::string& name() const = 0;
    virtual const std::vector<ParamInfo>& params() const = 0;
    // The largest work-group this kernel can run on its device (registers and local memory can
    // make it smaller than the device's limit).
    virtual std::size_t max_work_group_size() const = 0;
    // What the backend knows of launching this kernel in 1-D work-groups of `group_size`
    // work-items with `local_bytes` of dynamic local memory each (see dualrt::KernelOccupancy:
    // fields the backend cannot determine stay empty). The core has checked that 0 < group_size
    // <= max_work_group_size() (and the device's limit) and local_bytes <= the device's local
    // memory, and sets group_size and local_bytes of the result itself.
    virtual KernelOccupancy occupancy(std::size_t group_size, std::size_t local_bytes) const = 0;
    // A 1-D work-group size for this kernel with `local_bytes` of dynamic local memory, in
    // 1..max_work_group_size() (local_bytes checked as for occupancy()).
    virtual std::size_t suggest_group_size(std::size_t local_bytes) const = 0;
    virtual NativeHandle native_handle() const = 0;  // cl_kernel / CUfunction
};

// One kernel argument after the core has checked it against ParamInfo. It borrows: `buffer` and
// `value` point into the caller's arguments, which live until QueueImpl::launch returns (a
// launch allocates nothing per argument).
struct KernelArg {
    ParamInfo::Kind kind = ParamInfo::Kind::scalar;
    // buffer: the allocation and the view's byte range
    BufferImpl* buffer = nullptr;
    std::size_t offset = 0;
    std::size_t bytes = 0;  // buffer: view length; local: bytes of local memory; scalar: value size
    const void* value = nullptr;  // scalar: the value's `bytes` bytes
};

// The checked arguments of one launch, in parameter order (a view of the core's fixed storage).
struct KernelArgs {
    const KernelArg* data = nullptr;
    std::size_t count = 0;
    const KernelArg* begin() const { return data; }
    const KernelArg* end() const { return data + count; }
    std::size_t size() const { return count; }
    const KernelArg& operator[](std::size_t i) const { return data[i]; }
};

// Launch geometry with OpenCL meaning, already validated: dims in 1..3, every local extent > 0,
// and every global extent a multiple of its local extent.
struct LaunchGeometry {
    int dims = 1;
    std::size_t global[3] = {1, 1, 1};
    std::size_t local[3] = {1, 1, 1};
};

// Recorded commands, replayed as one unit (Queue::replay). Holds what its commands need of the
// driver; the core keeps the buffers, host buffers and kernels they use alive as long as it.
class RecordingImpl {
public:
    virtual ~RecordingImpl() = default;
    // Enqueues the recorded commands on `queue` (of the recording's device, checked by the core)
    // after the queue's earlier work, and returns the event of their end.
    virtual EventPtr replay(QueueImpl& queue) = 0;
};

// Records commands into one RecordingImpl, on one or more lanes: lane 0 is the queue that began
// the recording, each queue that joins it gets the next (add_lane). A lane's commands run in the
// order recorded; between lanes, only as wait() says. The core has checked every argument as for
// the queue's own methods, that host memory lies in `host` (pinned memory this device copies by
// DMA, `host_offset` bytes into it), and that nothing recorded needs the host at replay. Each
// command returns its point, by which other lanes wait for it.
class RecorderImpl {
public:
    using Point = std::size_t;
    virtual ~RecorderImpl() = default;
    // A new lane, whose commands run after those recorded on lane 0 so far.
    virtual std::size_t add_lane() = 0;
    // The commands recorded on `lane` from now on run after `point` (of another lane).
    virtual void wait(std::size_t lane, Point point) = 0;
    virtual Point copy_to_device(std::size_t lane, BufferImpl& dst, std::size_t dst_offset,
                                 HostBufferImpl& host, std::size_t host_offset,
                                 std::size_t bytes) = 0;
    virtual Point copy_to_host(std::size_t lane, HostBufferImpl& host, std::size_t host_offset,
                               BufferImpl& src, std::size_t src_offset, std::size_t bytes) = 0;
    virtual Point copy_device(std::size_t lane, BufferImpl& dst, std::size_t dst_offset,
                              BufferImpl& src, std::size_t src_offset, std::size_t bytes) = 0;
    virtual Point fill(std::size_t lane, BufferImpl& dst, std::size_t offset, std::size_t bytes,
                       const void* pattern, std::size_t pattern_size) = 0;
    virtual Point launch(std::size_t lane, KernelImpl& kernel, const LaunchGeometry& geometry,
                         KernelArgs args) = 0;
    // Ends the recording: its commands on every lane as one RecordingImpl, whose replay ends
    // once every lane's commands have. With `previous` (a recording of this device's backend
    // made before, or null) the backend may update its executable work in place instead and
    // return it, setting `updated`.
    virtual std::shared_ptr<RecordingImpl> finish(const std::shared_ptr<RecordingImpl>& previous,
                                                  bool& updated) = 0;
};

// An in-order queue. Every enqueue returns the event of the enqueued work. With Sync::blocking
// the call returns after the work has completed.
class QueueImpl {
public:
    virtual ~QueueImpl() = default;
    virtual const DeviceImpl& device() const = 0;  // the owner, for same-device checks
    virtual EventPtr copy_to_device(BufferImpl& dst, std::size_t dst_offset, const void* src,
                                    std::size_t bytes, Sync sync) = 0;
    virtual EventPtr copy_to_host(void* dst, BufferImpl& src, std::size_t src_offset,
                                  std::size_t bytes, Sync sync) = 0;
    // Source and destination ranges never overlap (checked by the core).
    virtual EventPtr copy_device(BufferImpl& dst, std::size_t dst_offset, BufferImpl& src,
                                 std::size_t src_offset, std::size_t bytes, Sync sync) = 0;
    // pattern_size is a power of two in 1..128; offset and bytes are multiples of it. The pattern
    // is copied before the call returns (the caller's value may go out of scope).
    virtual EventPtr fill(BufferImpl& dst, std::size_t offset, std::size_t bytes,
                          const void* pattern, std::size_t pattern_size, Sync sync) = 0;
    virtual EventPtr launch(KernelImpl& kernel, const LaunchGeometry& geometry,
                            KernelArgs args) = 0;
    // (optional) Copies `bytes` from `src` (a buffer of another device, for which
    // device().can_copy_peer(src.device()) is true) into `dst` (of this queue's device), ordered
    // on this queue, device to device. Defaults to Errc::unavailable (the core never calls it
    // then).
    virtual EventPtr copy_peer(BufferImpl& dst, std::size_t dst_offset, BufferImpl& src,
                               std::size_t src_offset, std::size_t bytes);
    virtual EventPtr record() = 0;  // a timed event at the current end of the queue
    // (optional) An untimed event at the current end of the queue: it completes once every
    // command enqueued so far has, for other queues and the host to wait on. Cheaper than
    // record() (no timestamp; CUDA: a pooled event, OpenCL: no flush), so a Pipeline can join
    // its stages per chunk with it. Defaults to record().
    virtual EventPtr mark();
    // (optional) Whether this queue times a span of commands from the commands themselves: the
    // event begin_timed_span() returns reads when the first command enqueued after it started,
    // the one end_timed_span() returns when the last of them ended; both time like record()'s.
    // A Pipeline times its stages so where it can, else with record()s before and after them,
    // which is right where a timed event keeps its queue's order (CUDA: the defaults, false and
    // two record()s). The OpenCL backend times commands, since a timed marker of NVIDIA's OpenCL
    // ends only once every earlier command of the context has. A span without commands gives
    // two record()s. Spans do not nest; finish() ends an open one.
    virtual bool times_commands() const { return false; }
    virtual EventPtr begin_timed_span() { return record(); }
    virtual EventPtr end_timed_span() { return record(); }
    // Later work waits; the host does not. `event` belongs to this queue's device, or to one
    // for which device().can_wait_on(event.device()) is true.
    virtual void wait_for(EventImpl& event) = 0;
    virtual void finish() = 0;                    // blocks until all enqueued work completed
    // Hands the commands enqueued so far to the device, without waiting and without an event:
    // OpenCL holds them until a flush. By default nothing, for backends whose enqueued work
    // starts by itself (CUDA).
    virtual void submit() {}
    virtual NativeHandle native_handle() const = 0;  // cl_command_queue / CUstream

    // The core's part of this queue in a recording under way (Queue::begin_recording), else
    // null: the queue's commands go to the recording's RecorderImpl instead of the methods above.
    detail::QueueRecording* recording() const noexcept { return recording_.get(); }
    detail::QueueRecordingPtr& recording_slot() noexcept { return recording_; }

private:
    detail::QueueRecordingPtr recording_;
};

// Always made with std::make_shared: the core turns a child's reference to its device back into
// the shared_ptr (shared_from_this) for copies between devices and Buffer::device().
class DeviceImpl : public std::enable_shared_from_this<DeviceImpl> {
public:
    DeviceImpl();  // with an empty launch journal
    virtual ~DeviceImpl();
    DeviceImpl(const DeviceImpl&) = delete;
    DeviceImpl& operator=(const DeviceImpl&) = delete;
    virtual const DeviceInfo& info() const = 0;
    // Throws Errc::out_of_memory when the allocation fails. bytes > 0 (checked by the core).
    virtual std::shared_ptr<BufferImpl> create_buffer(std::size_t bytes) = 0;
    virtual std::shared_ptr<HostBufferImpl> create_host_buffer(std::size_t bytes) = 0;
    // (optional) Pins `bytes` of the application's memory at `data` in place, for DMA, until the
    // returned object is destroyed; the memory stays the application's (borrowed: never freed
    // here). data() of the result is `data`. The core has checked that data is not null, bytes >
    // 0 and that no dualrt pinned range overlaps it. Throws Errc::invalid_argument when the
    // driver refuses this range (naming why), Errc::out_of_memory when the host cannot pin it.
    // Defaults to Errc::unavailable: this backend cannot register host memory.
    virtual std::shared_ptr<HostBufferImpl> register_host_memory(void* data, std::size_t bytes);
    // Host memory kernels reach directly. The core has checked info().can_map_host_memory.
    // Throws Errc::out_of_memory when the host cannot pin it. Blocks.
    virtual std::shared_ptr<MappedBufferImpl> create_mapped_buffer(std::size_t bytes) = 0;
    // A new in-order queue. `timed`: record() gives timed events (elapsed_ms_since); without,
    // record() gives an untimed point like mark(), and the queue may skip what timestamps cost
    // (OpenCL: a queue without CL_QUEUE_PROFILING_ENABLE, whose kept events are cheaper).
    virtual std::shared_ptr<QueueImpl> create_queue(bool timed) = 0;
    // Looks a built-in kernel up by name, building its program on first use (cached).
    // Throws Errc::not_found naming the known kernels when there is no such kernel.
    virtual std::shared_ptr<KernelImpl> kernel(const std::string& name) = 0;
    // Compiles kernel source text at run time (OpenCL C with the OpenCL compiler; CUDA C++ with
    // NVRTC) and returns the names of the kernels it defines, which kernel(name) finds from then
    // on. `name` names the source in messages. Throws Errc::compile_error with the full build log,
    // Errc::invalid_argument when a kernel it defines already exists on this device (built-in or
    // loaded before), or when it defines no kernel.
    virtual std::vector<std::string> load_source(const std::string& name,
                                                 const std::string& text) = 0;
    // (optional) Whether queues of this device can wait, on the device, for events of `other`
    // (QueueImpl::wait_for). Defaults to `&other == this`; CUDA: any CUDA device (CUDA events
    // order streams across contexts). Where it is false the core waits on the host.
    virtual bool can_wait_on(const DeviceImpl& other) const;
    // (optional) Whether QueueImpl::copy_peer copies from `other`'s buffers into this device's
    // directly (CUDA: peer access between the two GPUs, enabled on first use). Defaults to false:
    // the core stages the copy through pinned host memory.
    virtual bool can_copy_peer(const DeviceImpl& other) const;
    // --- Memory shared in place with another device of the same GPU (shared_memory.hpp) ---
    // (optional) Why this device cannot allocate memory that another API imports, "" when it
    // can. Defaults to "the <backend> backend cannot export memory".
    virtual std::string cannot_export_memory() const;
    // (optional) `bytes` of device memory of this device (a buffer like create_buffer's) and a
    // POSIX file descriptor of the same memory for another device to import; the caller owns the
    // descriptor (import_memory takes it). Throws Errc::out_of_memory when there is no room,
    // Errc::unavailable when cannot_export_memory() says why not.
    struct ExportedMemory {
        std::shared_ptr<BufferImpl> buffer;
        int fd = -1;
    };
    virtual ExportedMemory export_memory(std::size_t bytes);
    // (optional) Why this device cannot import another API's memory, "" when it can. Defaults to
    // "the <backend> backend cannot import memory".
    virtual std::string cannot_import_memory() const;
    // (optional) A buffer of `bytes` around memory another device exported as `fd` (an opaque
    // POSIX file descriptor), used in place. Takes the descriptor in every case: the driver owns
    // it once the import succeeds, and it is closed here when the import fails. Throws
    // Errc::unavailable when cannot_import_memory() says why not, Errc::invalid_argument when the
    // driver refuses the descriptor.
    virtual std::shared_ptr<BufferImpl> import_memory(int fd, std::size_t bytes);
    // (optional) The largest import known to be safe, and why there is a limit ("" and SIZE_MAX
    // by default). Checked before the other side allocates anything.
    struct ImportLimit {
        std::size_t bytes = SIZE_MAX;
        std::string why;
    };
    virtual ImportLimit largest_import() const;
    virtual NativeHandle native_handle() const = 0;   // cl_device_id / CUdevice
    virtual NativeHandle native_context() const = 0; // cl_context / CUcontext
    // (optional) A recorder of commands for `queue` (of this device), on the path info().recording
    // names. Defaults to Errc::unavailable: this backend cannot record.
    virtual std::unique_ptr<RecorderImpl> create_recorder(QueueImpl& queue);

    // --- Interop: objects made around the application's handles (interop.hpp) ---
    // Each hook makes an Impl around one handle of this backend, owned (Ownership::adopt:
    // released with the Impl) or borrowed (never released, whatever happens). The core has
    // checked that the handle is of this backend and not 0 (and for buffers that bytes > 0 does
    // not overflow). The backend checks what only the driver knows: that the handle belongs to
    // this device's context and device, and the size of an allocation. Such a mismatch throws
    // Errc::invalid_argument naming the call that found it, what the handle is and what was
    // expected. Block while they query the driver.

    // (optional) A queue around a cl_command_queue / CUstream of this device's context. OpenCL:
    // in-order only; record() events of a queue without CL_QUEUE_PROFILING_ENABLE order work,
    // and elapsed_ms_since throws Errc::invalid_argument naming the missing property.
    // Defaults to Errc::unavailable: this backend cannot wrap queues.
    virtual std::shared_ptr<QueueImpl> wrap_queue(NativeHandle queue, Ownership ownership);
    // (optional) A buffer of `bytes` bytes around a cl_mem / CUdeviceptr of this device's
    // context, starting at the handle (CUDA: the pointer; OpenCL: offset 0 of the cl_mem).
    // Defaults to Errc::unavailable: this backend cannot wrap device memory.
    virtual std::shared_ptr<BufferImpl> wrap_buffer(NativeHandle memory, std::size_t bytes,
                                                    Ownership ownership);
    // (optional) An event around a cl_event / CUevent that this device's queues can wait for.
    // Its timed() is true: elapsed_ms_since finds out from the driver whether it carries a
    // timestamp, and throws Errc::invalid_argument saying why not when it does not.
    // Defaults to Errc::unavailable: this backend cannot wrap events.
    virtual EventPtr wrap_event(NativeHandle event, Ownership ownership);

    // The core's record of the kernels launched here and not known to have completed
    // (launch_journal.hpp). One per device, so that launches on different devices, which a
    // Pipeline over several devices makes from a thread each, never share a lock.
    detail::LaunchJournal& launch_journal() const { return *launch_journal_; }

private:
    std::unique_ptr<detail::LaunchJournal, detail::LaunchJournalDeleter> launch_journal_;
};

class BackendImpl {
public:
    virtual ~BackendImpl() = default;
    virtual std::string version() const = 0;  // e.g. "OpenCL ICD loader, 2 platforms"
    // Every usable device, in a stable order. Created once and shared.
    virtual const std::vector<std::shared_ptr<DeviceImpl>>& devices() = 0;
    // (optional) A new device around the application's context (cl_context / CUcontext) and one
    // of its devices (cl_device_id / CUdevice), apart from devices(): its info() is that of the
    // listed device with the same hardware, with wrapped_context set. Owned or borrowed as for
    // DeviceImpl's wrap hooks; the context is released (adopt) when the DeviceImpl is destroyed,
    // after its children. The core has checked that the context is not 0 and both handles are
    // of this backend. Throws Errc::invalid_argument when the context does not hold the device
    // or is not valid, Errc::not_found when the device is not among devices().
    // Defaults to Errc::unavailable: this backend cannot wrap contexts.
    virtual std::shared_ptr<DeviceImpl> wrap_device(NativeHandle context, NativeHandle device,
                                                    Ownership ownership);
};

}  // namespace dualrt::backend

// What a backend module exports, by the unmangled name dualrt_backend_entry. The core refuses a
// module whose api_version differs from its own.
struct dualrt_backend_descriptor {
    int api_version;
    const char* name;
    // Creates the backend, enumerating platforms/devices. Throws dualrt::Error (Errc::unavailable)
    // with the reason when the backend cannot be used on this machine.
    std::unique_ptr<dualrt::backend::BackendImpl> (*create)();
};

extern "C" {
using dualrt_backend_entry_fn = const dualrt_backend_descriptor* (*)();
}

#define DUALRT_BACKEND_ENTRY_NAME "dualrt_backend_entry"
