// The one place the OpenCL C++ bindings (CLHPP, CL/opencl.hpp) are included. Every file of the
// OpenCL backend includes this header instead of CL/opencl.hpp or CL/cl.h, so the target and
// minimum versions and the exception mode are the same everywhere.
#pragma once

// Compile against the OpenCL 3.0 API; CLHPP then picks 1.2 / 2.0 entry points at run time from
// each platform's version (e.g. clCreateCommandQueue vs clCreateCommandQueueWithProperties).
#define CL_HPP_TARGET_OPENCL_VERSION 300

// dualrt needs OpenCL 1.2 (sub-buffers, fill, markers, kernel argument info) and refuses older
// devices at enumeration (backend.cpp). The CLHPP minimum is set to 110, not 120, because CLHPP
// 2023.02 (Debian 12's opencl-clhpp-headers) only defines cl::detail::getContextPlatformVersion
// for minimums below 120 but calls it for every minimum below 200, so 300/120 does not compile
// (a CLHPP bug, fixed upstream after that release by KhronosGroup/OpenCL-CLHPP pull 245). 110
// only adds run-time version checks inside CLHPP; it enables nothing this backend calls.
#define CL_HPP_MINIMUM_OPENCL_VERSION 110

// Failing CLHPP calls throw cl::Error (with err() and the C function's name as what()).
// CL_CHECK (check.hpp) turns them into dualrt::Error at each call site.
#define CL_HPP_ENABLE_EXCEPTIONS

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"       // cl_float4 etc. in templates
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // 1.x entry points CLHPP wraps
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wold-style-cast"
#endif

#include <CL/opencl.hpp>

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

// Queries of the cl_nv_device_attribute_query extension that Khronos' cl_ext.h does not list.
// Values as in NVIDIA's own headers.
#ifndef CL_DEVICE_PCI_BUS_ID_NV
#define CL_DEVICE_PCI_BUS_ID_NV 0x4008
#endif
#ifndef CL_DEVICE_PCI_SLOT_ID_NV
#define CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#endif
#ifndef CL_DEVICE_PCI_DOMAIN_ID_NV
#define CL_DEVICE_PCI_DOMAIN_ID_NV 0x400A
#endif
