// The entry point of libdualrt_vendor_cuda.so, shared by the module (vendor_cuda.cpp) and the
// loader (vendor_loader.cpp), as native_module.hpp is for the native baselines.
//
// The loader passes the device as the CUDA runtime sees it: its ordinal, which is dualrt's CUDA
// device index (both count the devices cuDeviceGet enumerates, under the same
// CUDA_VISIBLE_DEVICES), and its PCI bus id, which the module compares with the runtime's so that
// a mismatch is an error rather than a measurement of another GPU. dualrt works in the device's
// primary context, which is the context the runtime API uses, so cudaSetDevice(ordinal) shares
// it. C linkage only for an unmangled name; failures are thrown as dualrt::Error.
#pragma once

#include "vendor_baseline.hpp"

extern "C" {

// Bumped when the struct or the VendorBaseline interface changes, so that a stale module is
// refused with a message instead of crashing.
#define DUALRT_VENDOR_API_VERSION 1
#define DUALRT_VENDOR_ENTRY_NAME "dualrt_vendor_baseline_create"
#define DUALRT_VENDOR_MODULE_FILE "libdualrt_vendor_cuda.so"

struct dualrt_vendor_device {
    int api_version;         // DUALRT_VENDOR_API_VERSION of the loader
    int ordinal;             // the CUDA runtime's device ordinal (dualrt's DeviceInfo::index)
    const char* pci_bus_id;  // dualrt's DeviceInfo::pci_bus_id ("0000:3b:00.0"), or nullptr
};

typedef dualrt::bench::VendorBaseline* (*dualrt_vendor_create_fn)(const dualrt_vendor_device*);

}  // extern "C"
