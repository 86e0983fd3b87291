// Recording on OpenCL (Queue::begin_recording): command buffers (cl_khr_command_buffer) where the
// device has a version of the extension this backend knows, else dualrt's own list of prepared
// commands. Which path a device takes is decided when it is listed (DeviceInfo::recording).
#pragma once

#include "backend/backend.hpp"
#include "cl.hpp"

#include <memory>
#include <optional>
#include <string>

namespace dualrt::opencl {

class DeviceImpl;
class QueueImpl;

// cl_khr_command_buffer's entry points as its version 0.9.0 defines them (PoCL 3.1 reports it).
// Later versions gave every recorded command a properties parameter, so a device that reports
// another version records as a command list rather than be called through a signature that does
// not match its own. Sync points are cl_uint and mutable-command handles pointers in every
// version; properties are cl_properties (cl_ulong).
struct CommandBufferApi {
    cl_command_buffer_khr(CL_API_CALL* create)(cl_uint queues, const cl_command_queue* queue_list,
                                               const cl_ulong* properties, cl_int* status);
    cl_int(CL_API_CALL* finalize)(cl_command_buffer_khr buffer);
    cl_int(CL_API_CALL* release)(cl_command_buffer_khr buffer);
    cl_int(CL_API_CALL* enqueue)(cl_uint queues, cl_command_queue* queue_list,
                                 cl_command_buffer_khr buffer, cl_uint waits,
                                 const cl_event* wait_list, cl_event* event);
    cl_int(CL_API_CALL* copy_buffer)(cl_command_buffer_khr buffer, cl_command_queue queue,
                                     cl_mem src, cl_mem dst, std::size_t src_offset,
                                     std::size_t dst_offset, std::size_t bytes, cl_uint waits,
                                     const cl_uint* wait_list, cl_uint* sync_point,
                                     void* mutable_handle);
    cl_int(CL_API_CALL* fill_buffer)(cl_command_buffer_khr buffer, cl_command_queue queue,
                                     cl_mem dst, const void* pattern, std::size_t pattern_size,
                                     std::size_t offset, std::size_t bytes, cl_uint waits,
                                     const cl_uint* wait_list, cl_uint* sync_point,
                                     void* mutable_handle);
    cl_int(CL_API_CALL* ndrange_kernel)(cl_command_buffer_khr buffer, cl_command_queue queue,
                                        const cl_ulong* properties, cl_kernel kernel,
                                        cl_uint dims, const std::size_t* offset,
                                        const std::size_t* global, const std::size_t* local,
                                        cl_uint waits, const cl_uint* wait_list,
                                        cl_uint* sync_point, void* mutable_handle);
    // The device may run a command buffer while an earlier enqueue of it is still pending.
    bool simultaneous_use = false;
};

// How a device records: command buffers with their entry points, or a command list and why not
// command buffers ("" where the device lacks the extension).
struct RecordingSupport {
    RecordingPath path = RecordingPath::command_list;
    std::optional<CommandBufferApi> api;
    std::string why_not;
};
RecordingSupport recording_support(const cl::Device& device, const std::string& extensions);

// A recorder for commands enqueued on `queue` of `device`, on the device's path.
std::unique_ptr<backend::RecorderImpl> make_recorder(std::shared_ptr<DeviceImpl> device,
                                                     std::shared_ptr<QueueImpl> queue,
                                                     const std::optional<CommandBufferApi>& api);

}  // namespace dualrt::opencl
