/// @file
/// dualrt: one API over CUDA and OpenCL. Include this header.
#pragma once

#include <dualrt/buffer.hpp>
#include <dualrt/device.hpp>
#include <dualrt/error.hpp>
#include <dualrt/event.hpp>
#include <dualrt/host_buffer.hpp>
#include <dualrt/interop.hpp>
#include <dualrt/kernel.hpp>
#include <dualrt/mapped_buffer.hpp>
#include <dualrt/pipeline.hpp>
#include <dualrt/queue.hpp>
#include <dualrt/recording.hpp>
#include <dualrt/runtime.hpp>
#include <dualrt/shared_memory.hpp>
#include <dualrt/staging.hpp>
#include <dualrt/trace.hpp>
#include <dualrt/types.hpp>
#include <dualrt/version.hpp>

/// @namespace dualrt
/// The public API: devices, buffers, queues, events and kernels over CUDA or OpenCL, chosen at run
/// time. Nothing in it names a CUDA or OpenCL type; native_handle() accessors return them as
/// opaque integers for interop.
