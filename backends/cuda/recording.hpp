// Recording on CUDA (Queue::begin_recording): CUDA graphs. The commands are captured on a stream
// of the recorder's own, with the same code that enqueues them one by one, and the graph is
// instantiated once; a replay is one cuGraphLaunch. Re-recording the same kinds of commands in
// the same order updates the executable graph in place (cuGraphExecUpdate).
#pragma once

#include "backend/backend.hpp"

#include <memory>

namespace dualrt::cuda {

class DeviceImpl;

std::unique_ptr<backend::RecorderImpl> make_recorder(std::shared_ptr<DeviceImpl> device);

}  // namespace dualrt::cuda
