// Setting a launch's checked arguments on a cl_kernel: for QueueImpl::launch, which sets them on
// the kernel's shared object for one launch, and for recordings, which set them once on an object
// of their own (recording.hpp).
#pragma once

#include "backend/backend.hpp"
#include "buffer.hpp"
#include "check.hpp"
#include "cl.hpp"

#include <cstddef>

namespace dualrt::opencl {

// Sets `args` on `kernel`: a whole buffer as it is, a view as a sub-buffer made into the slot
// `next_sub_buffer()` returns (the caller keeps it while the launch needs it), local memory by
// size, a scalar by value. `context(i)` names argument i in an error; it is called only then.
template <typename NextSubBuffer, typename Context>
void set_kernel_arguments(cl::Kernel& kernel, backend::KernelArgs args,
                          NextSubBuffer&& next_sub_buffer, Context&& context) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const backend::KernelArg& arg = args[i];
        const auto index = static_cast<cl_uint>(i);
        switch (arg.kind) {
        case backend::ParamInfo::Kind::buffer: {
            // The core hands this backend only its own buffers.
            auto& buffer = static_cast<BufferImpl&>(*arg.buffer);
            const cl::Buffer& value =
                buffer.kernel_argument(arg.offset, arg.bytes, next_sub_buffer());
            CL_CHECK(kernel.setArg(index, value), context(i));
            break;
        }
        case backend::ParamInfo::Kind::local:
            CL_CHECK(kernel.setArg(index, arg.bytes, nullptr), context(i));
            break;
        case backend::ParamInfo::Kind::scalar:
        case backend::ParamInfo::Kind::unknown:
            CL_CHECK(kernel.setArg(index, arg.bytes, arg.value), context(i));
            break;
        }
    }
}

}  // namespace dualrt::opencl
