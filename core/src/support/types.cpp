#include <dualrt/types.hpp>
#include <dualrt/version.hpp>

namespace dualrt {

const char* to_string(Backend backend) noexcept {
    switch (backend) {
        case Backend::cuda: return "cuda";
        case Backend::opencl: return "opencl";
    }
    return "unknown";
}

const char* to_string(DeviceType type) noexcept {
    switch (type) {
        case DeviceType::gpu: return "GPU";
        case DeviceType::cpu: return "CPU";
        case DeviceType::accelerator: return "accelerator";
        case DeviceType::other: return "other";
    }
    return "unknown";
}

const char* to_string(RecordingPath path) noexcept {
    switch (path) {
        case RecordingPath::none: return "none";
        case RecordingPath::graph: return "graph";
        case RecordingPath::command_buffer: return "command buffer";
        case RecordingPath::command_list: return "command list";
    }
    return "unknown";
}

std::string Range::str() const {
    std::string out;
    for (int axis = 0; axis < (dims_ == 0 ? 1 : dims_); ++axis) {
        if (axis > 0) out += "x";
        out += dims_ == 0 ? std::string("auto")
                          : std::to_string(extent_[static_cast<std::size_t>(axis)]);
    }
    return out;
}

const char* version_string() noexcept { return DUALRT_VERSION_TEXT; }

}  // namespace dualrt
