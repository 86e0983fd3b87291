// The entry point of the native baseline modules (libdualrt_native_cuda.so,
// libdualrt_native_opencl.so), shared by the modules and by the loader (native_loader.cpp).
//
// The loader passes the vendor handles of the device dualrt selected as plain integers, so the
// loader and the benchmarks see no vendor type. The entry has C linkage only for an unmangled name
// that dlsym finds; both sides are C++ built with the same compiler and the same libdualrt, so it
// returns a C++ object and reports failures by throwing dualrt::Error (whose type_info lives in
// libdualrt, so the program catches it as the same type).
#pragma once

#include "native_baseline.hpp"

#include <cstdint>

extern "C" {

// Bumped when the struct or the NativeBaseline interface changes, so that a stale module is
// refused with a message instead of crashing.
#define DUALRT_NATIVE_API_VERSION 7
#define DUALRT_NATIVE_ENTRY_NAME "dualrt_native_baseline_create"

struct dualrt_native_handles {
    int api_version;              // DUALRT_NATIVE_API_VERSION of the loader
    std::uintptr_t device;        // CUdevice / cl_device_id
    std::uintptr_t context;       // the primary CUcontext / cl_context dualrt uses
    std::uintptr_t empty_kernel;  // CUfunction / cl_kernel of the built-in `empty`
    std::uintptr_t busy_kernel;   // CUfunction / cl_kernel of the built-in `busy`
    std::uintptr_t triad_kernel;  // CUfunction / cl_kernel of the built-in `triad` (stream)
    std::uintptr_t stencil_kernel;  // CUfunction / cl_kernel of the built-in `stencil_blur3x3`
    std::uintptr_t jacobi_kernel;   // CUfunction / cl_kernel of the built-in `jacobi_rows`
};

typedef dualrt::bench::NativeBaseline* (*dualrt_native_create_fn)(const dualrt_native_handles*);

}  // extern "C"
